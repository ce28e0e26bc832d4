"""Value objects of the judge core: `@record` classes, made without `dataclasses`.

The core's types are plain records: named fields, defaults, equality, a hash when frozen,
a repr, and `replace()`. `dataclasses` writes each class's methods as source text and
compiles it, and imports `inspect` (with `ast`, `dis`, `tokenize`) to do so: about 0.5 ms a
class and 7 ms of imports, some 20 ms of every `judge run` for the core's sixty classes,
paid again by every worker and every browser page that loads the core. A record's methods
are shared functions that read the class's field table instead, so making a class costs
a `type()` call.

    @record
    class Limits:
        time_s: float
        memory_mb: int = 256
        env: dict[str, str] = default(factory=dict)  # a fresh dict each

    @record(frozen=False)
    class Streams: ...                       # mutable: no hash, attributes may be set

Fields are the class's own annotations, in order (a record does not inherit fields). Every
record has `__slots__` (no `__dict__`), so a misspelt attribute is an error, not a new one.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
    R = TypeVar("R")
else:

    def dataclass_transform(**_options: object) -> object:
        return lambda decorator: decorator


class FrozenRecordError(AttributeError):
    """An attribute of a frozen record was set or deleted."""


class _Default:
    """`default(factory)`: a field whose default is made fresh for each instance."""

    __slots__ = ("factory",)

    def __init__(self, factory: Callable[[], object]) -> None:
        self.factory = factory


def default(*, factory: Callable[[], T]) -> T:
    """A field's default made by calling `factory` for each new record (a list, a dict).
    Keyword-only and named `factory`, as type checkers read a field specifier."""
    return _Default(factory)  # type: ignore[return-value]


_MISSING = object()


class _Field:
    __slots__ = ("factory", "name", "value")

    def __init__(self, name: str, value: object) -> None:
        self.name = name
        self.factory = value.factory if isinstance(value, _Default) else None
        self.value = _MISSING if isinstance(value, _Default) else value

    def initial(self, cls: type) -> object:
        if self.factory is not None:
            return self.factory()
        if self.value is _MISSING:
            raise TypeError(f"{cls.__name__}() missing required argument: {self.name!r}")
        return self.value


def _init(self: Any, *args: object, **kwargs: object) -> None:
    cls = type(self)
    fields: tuple[_Field, ...] = cls.__record_fields__
    if len(args) > len(fields):
        raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments, {len(args)} given")
    put = object.__setattr__
    for i, field in enumerate(fields):
        if i < len(args):
            if field.name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for {field.name!r}")
            put(self, field.name, args[i])
        elif field.name in kwargs:
            put(self, field.name, kwargs.pop(field.name))
        else:
            put(self, field.name, field.initial(cls))
    if kwargs:  # each field's argument was taken out above: what is left names none
        raise TypeError(f"{cls.__name__}() got an unexpected argument {next(iter(kwargs))!r}")


def _values(self: Any) -> tuple[object, ...]:
    return tuple([getattr(self, name) for name in self.__slots__])


def _eq(self: Any, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
    return f"{type(self).__qualname__}({inner})"


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _getstate(self: Any) -> tuple[object, ...]:
    return _values(self)


def _setstate(self: Any, state: tuple[object, ...]) -> None:
    for name, value in zip(self.__slots__, state, strict=True):
        object.__setattr__(self, name, value)


def _make(cls: type, frozen: bool) -> type:
    if any(hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: a record does not inherit another's fields")
    namespace = dict(cls.__dict__)
    names = tuple(namespace.get("__annotations__", {}))
    fields = tuple(_Field(name, namespace.pop(name, _MISSING)) for name in names)
    required_after_default = False
    for field in fields:
        has_default = field.factory is not None or field.value is not _MISSING
        if not has_default and required_after_default:
            raise TypeError(
                f"{cls.__name__}: {field.name!r} has no default but follows one that has"
            )
        required_after_default = required_after_default or has_default
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace.update(
        __slots__=names,
        __record_fields__=fields,
        __match_args__=names,
        __init__=_init,
        __repr__=namespace.get("__repr__", _repr),
        __eq__=_eq,
        __getstate__=_getstate,
        __setstate__=_setstate,
    )
    if frozen:
        namespace.update(__hash__=_hash, __setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
    else:
        namespace["__hash__"] = None  # mutable and compared by value: unhashable
    return type(cls)(cls.__name__, cls.__bases__, namespace)


@dataclass_transform(frozen_default=True, field_specifiers=(default,))
def record(cls: Any = None, /, *, frozen: bool = True) -> Any:
    """Make `cls` a record (see the module's docstring): frozen unless `frozen=False`."""
    if cls is None:
        return lambda later: _make(later, frozen)
    return _make(cls, frozen)


def replace(obj: R, /, **changes: object) -> R:
    """A copy of the record `obj` with `changes`: made through its class, as a new one is."""
    cls = type(obj)
    fields: tuple[_Field, ...] | None = getattr(cls, "__record_fields__", None)
    if fields is None:
        raise TypeError(f"replace() needs a record, got {cls.__name__}")
    values = {field.name: getattr(obj, field.name) for field in fields}
    for name in changes:
        if name not in values:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
    made: R = cls(**(values | changes))
    return made
