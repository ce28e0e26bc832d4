"""Calls between a trusted driver and a hosted submission, carried by the parent.

A problem whose driver must not share the learner's process declares `[driver] side =
"trusted"` (the capstone: its runner, KV pool, token budget and trace are the rules). Its
cases.py then runs in a trusted child, where the submission is `HostedSubmission`: calling
one of its names sends a `call` frame to the job, where the learner's own code runs, and
what it returns comes back in a `return` frame (an object stays in the job; the driver
holds a `RemoteObject` naming it). An object the driver passes in a call (the runner)
reaches the job as a `Stub`: the attributes it declares (`remote_attributes`) copied once,
and its declared methods (`remote_methods`), each a call back to the trusted side. Calls
nest: while the driver waits for the engine's `step()`, the engine's `runner.forward(...)`
comes back and is answered first.

Every frame passes through the parent (judge/run/hosted_session.py), which checks the
job's frames before the driver sees them. Nothing here decides a verdict; both sides run
this module, the job's side untrusted.

Values are plain data (None, bool, int, float, str, lists, dicts), with three tags: a
dict whose keys are not all strings travels as its pairs, an object the job keeps as its
handle, and an object the driver passes as its stub's description.
"""

from __future__ import annotations

import builtins

from judge.wire.codec import MAX_DEPTH, ObservationTypeError
from judge.wire.protocol import FrameReader, encode_frame, read_frame, write_frame

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

PAIRS, OBJECT, STUB = "__pairs__", "__object__", "__stub__"
_TAGS = (PAIRS, OBJECT, STUB)
_SCALARS = (type(None), bool, int, float, str)
# The frames of one hosted case. The parent starts it (`host` to the job, the case to the
# driver) and ends it (`end` to the job, which answers `ended`).
CALL, RETURN, RAISE = "call", "return", "raise"
HOST, END, ENDED = "host", "end", "ended"
MESSAGE_CHARS = 2000  # of a refusal's text sent back to the job


class PeerGone(Exception):
    """The other side's channel closed (the parent ended the case, or the job died)."""


class RemoteError(Exception):
    """Raised where a call made through the channel failed on the other side; a subclass
    named after the other side's exception (`PoolError`) is raised in its place."""


class ProtocolViolation(Exception):
    """A frame that is not what this side expects at this point: the case cannot go on."""


def remote_error(exception: object, message: object, builtin: object = None) -> RemoteError:
    """The other side's exception, as an exception of that name here (RemoteError if the
    name is not an identifier), also of the built-in class it derived from there, so that
    `except ValueError` catches a refusal here as it would in one process."""
    name = exception if isinstance(exception, str) and exception.isidentifier() else ""
    base = getattr(builtins, builtin, None) if isinstance(builtin, str) else None
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = None
    key = (name, base)
    kind = _ERROR_CLASSES.get(key)
    if kind is None:
        bases: tuple[type, ...] = (RemoteError,) if base is None else (RemoteError, base)
        try:
            kind = type(name or "RemoteError", bases, {})
        except TypeError:  # a built-in whose layout cannot be combined: the name alone
            kind = type(name or "RemoteError", (RemoteError,), {})
        _ERROR_CLASSES[key] = kind
    return kind(str(message)[:MESSAGE_CHARS])


_ERROR_CLASSES: dict[tuple[str, type | None], type[RemoteError]] = {}


def builtin_base(exc: BaseException) -> str | None:
    """The first built-in exception class `exc` is an instance of, past its own (an
    exception of the standard library's own class: that class)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins" and cls not in (BaseException, Exception, object):
            return cls.__name__
    return None


class Channel:
    """One side's end: frames read from `read_fd`, written to `write_fd`; the objects this
    side hands out by handle; the calls it serves while waiting for its own."""

    def __init__(
        self,
        read_fd: int,
        write_fd: int,
        reader: FrameReader | None = None,
        refuse: Callable[[BaseException], dict[str, object]] | None = None,
        driver: bool = True,
    ) -> None:
        """`driver`: this is the trusted side, which alone passes stubs of its objects and
        alone is handed objects by handle; the job's side (False) the reverse."""
        self.driver = driver
        self.read_fd, self.write_fd = read_fd, write_fd
        self.reader = reader or FrameReader(max_payload=0)
        self.refusal = refuse or _refusal
        self.objects: dict[int, object] = {}  # handle -> an object this side keeps
        self.exported: dict[int, tuple[object, frozenset[str]]] = {}  # stub id -> (object, methods)
        self.names: dict[str, object] = {}  # callable by name from the other side

    # ------------------------------------------------------------------ making calls

    def call(self, target: int | str, method: str | None, args: tuple[object, ...]) -> object:
        """Call `target` (a name the other side serves, or a handle it gave) or its `method`
        with `args` there; serve the other side's calls meanwhile; its answer."""
        header = {"type": CALL, "target": target, "method": method, "args": self.outgoing(args)}
        write_frame(self.write_fd, encode_frame(header))
        while True:
            frame = read_frame(self.read_fd, self.reader)
            if frame is None:
                raise PeerGone
            kind = frame.header.get("type")
            if kind == RETURN:
                return self.incoming(frame.header.get("value"))
            if kind == RAISE:
                header = frame.header
                raise remote_error(
                    header.get("exception"), header.get("message"), header.get("builtin")
                )
            if kind == CALL:
                self.serve(frame.header)
                continue
            raise ProtocolViolation(f"expected an answer, got a {kind!r:.20} frame")

    # ------------------------------------------------------------------ serving calls

    def serve(self, header: dict[str, object]) -> None:
        """Run one call the other side made and answer it (`return` or `raise`)."""
        try:
            value = self._invoke(header)
            answer = {"type": RETURN, "value": self.outgoing(value)}
        except (PeerGone, ProtocolViolation):
            raise
        except BaseException as exc:  # noqa: BLE001 - the caller's failure, reported to it
            answer = self.refusal(exc)
        write_frame(self.write_fd, encode_frame(answer))

    def _invoke(self, header: dict[str, object]) -> object:
        target, method = header.get("target"), header.get("method")
        args = header.get("args")
        if type(args) is not list:
            raise ProtocolViolation("a call's arguments must be a list")
        values: list[object] = self.incoming(args)  # type: ignore[assignment]
        if type(target) is str and method is None and target in self.names:
            return self.names[target](*values)  # type: ignore[operator]
        if type(target) is int and type(method) is str:
            if target in self.exported:
                owner, methods = self.exported[target]
                if method not in methods:
                    raise AttributeError(f"{type(owner).__name__} has no method {method!r:.40}")
                return getattr(owner, method)(*values)
            if target in self.objects:
                if method.startswith("_"):
                    raise ProtocolViolation(f"no call to a private method ({method!r:.40})")
                return getattr(self.objects[target], method)(*values)
        raise ProtocolViolation(f"no such callee: {target!r:.40}.{method!r:.40}")

    # ------------------------------------------------------------------ values

    def outgoing(self, value: object, depth: int = 0) -> object:
        """`value` as frame data: plain data as it is, tuples as lists, a dict with other
        keys than strings as its pairs, any other object by handle (this side keeps it) or,
        if it declares `remote_methods`, as a stub."""
        if depth > MAX_DEPTH:
            raise ObservationTypeError(f"the value nests deeper than {MAX_DEPTH}")
        if type(value) in _SCALARS:
            return value
        if isinstance(value, list | tuple) and type(value) in (list, tuple):
            return [self.outgoing(v, depth + 1) for v in value]
        if isinstance(value, dict) and type(value) is dict:
            return self._dict(value, depth)
        methods = getattr(type(value), "remote_methods", None) if self.driver else None
        if isinstance(methods, tuple):
            return self._stub(value, methods)
        handle = id(value)
        self.objects[handle] = value
        return {OBJECT: handle}

    def _dict(self, value: dict[object, object], depth: int) -> object:
        if all(type(k) is str for k in value) and not any(k in _TAGS for k in value):
            return {k: self.outgoing(v, depth + 1) for k, v in value.items()}
        pairs = []
        for key, item in value.items():
            if type(key) not in _SCALARS or type(key) is float:
                raise ObservationTypeError(f"a dict key of type {type(key).__name__}")
            pairs.append([key, self.outgoing(item, depth + 1)])
        return {PAIRS: pairs}

    def _stub(self, value: object, methods: tuple[object, ...]) -> object:
        names = [getattr(value, "remote_attributes", ())]
        attributes = {str(n): getattr(value, str(n)) for n in names[0]}
        handle = id(value)
        self.exported[handle] = (value, frozenset(str(m) for m in methods))
        return {STUB: handle, "attributes": attributes, "methods": [str(m) for m in methods]}

    def incoming(self, data: object, depth: int = 0) -> object:
        """Frame data back into values: pairs into a dict, a handle into a RemoteObject, a
        stub into a Stub. ProtocolViolation for what no side sends."""
        if depth > MAX_DEPTH:
            raise ProtocolViolation(f"a value nests deeper than {MAX_DEPTH}")
        if type(data) in _SCALARS:
            return data
        if type(data) is list:
            return [self.incoming(v, depth + 1) for v in data]
        if type(data) is not dict:
            raise ProtocolViolation(f"unexpected {type(data).__name__} in a call")
        if PAIRS in data:
            return self._pairs(data[PAIRS], depth)
        if OBJECT in data and self.driver:
            handle = data[OBJECT]
            if type(handle) is not int:
                raise ProtocolViolation("an object's handle must be an int")
            return RemoteObject(self, handle)
        if STUB in data and not self.driver:
            return Stub(self, data)
        if any(tag in data for tag in _TAGS):
            raise ProtocolViolation("a tag the other side may not send")
        return {k: self.incoming(v, depth + 1) for k, v in data.items()}

    def _pairs(self, pairs: object, depth: int) -> dict[object, object]:
        if type(pairs) is not list:
            raise ProtocolViolation("a dict's pairs must be a list")
        out: dict[object, object] = {}
        for pair in pairs:
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) not in _SCALARS:
                raise ProtocolViolation("a dict's pair must be [scalar key, value]")
            out[pair[0]] = self.incoming(pair[1], depth + 1)
        return out


class RemoteObject:
    """An object the other side keeps (the learner's engine, seen from the driver): each
    attribute is a method, called there."""

    __slots__ = ("_channel", "_handle")

    def __init__(self, channel: Channel, handle: int) -> None:
        self._channel, self._handle = channel, handle

    def __getattr__(self, method: str) -> object:
        if method.startswith("_"):
            raise AttributeError(method)
        channel, handle = self._channel, self._handle

        def remote_method(*args: object) -> object:
            return channel.call(handle, method, args)

        return remote_method


class Stub:
    """The trusted side's object as the job sees it (the runner): its declared attributes,
    copied when it was passed, and its declared methods, each a call back to it."""

    def __init__(self, channel: Channel, description: dict[str, object]) -> None:
        handle, attributes = description.get(STUB), description.get("attributes")
        methods = description.get("methods")
        if type(handle) is not int or type(attributes) is not dict or type(methods) is not list:
            raise ProtocolViolation("a malformed stub")
        for name, value in attributes.items():
            object.__setattr__(self, str(name), value)
        for name in methods:
            object.__setattr__(self, str(name), _method(channel, handle, str(name)))


def _method(channel: Channel, handle: int, name: str) -> object:
    def call_back(*args: object) -> object:
        return channel.call(handle, name, args)

    call_back.__name__ = call_back.__qualname__ = name
    return call_back


class HostedSubmission:
    """What the driver gets as the submission in the trusted child: its names, each called
    in the job (`sub.Engine(runner)` builds the learner's engine there)."""

    def __init__(self, channel: Channel, names: list[str]) -> None:
        self._channel, self._names = channel, frozenset(names)

    def __getattr__(self, name: str) -> object:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"the submission defines no {name!r} for this problem")
        channel = self._channel

        def remote_name(*args: object) -> object:
            return channel.call(name, None, args)

        return remote_name


def _refusal(exc: BaseException) -> dict[str, object]:
    """The `raise` answer for `exc` (the job's side sends the learner's line and traceback)."""
    return {
        "type": RAISE,
        "exception": type(exc).__name__,
        "builtin": builtin_base(exc),
        "message": _text(exc),
    }


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:MESSAGE_CHARS]
    except BaseException:  # noqa: BLE001 - a __str__ that raises is the caller's object
        return type(exc).__name__
