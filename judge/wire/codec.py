"""Observations as plain data: encoding on the untrusted side, strict decoding on the trusted side.

An observation is None, bool, int, float, str, a list or tuple of observations, a dict
with str keys, or a tensor. Types are checked exactly (`type(x) is int`), so a subclass
with a lying __eq__ or a lazy proxy never reaches a checker. Non-finite floats and tensors
become tagged dicts so the JSON stays standard.
"""

from __future__ import annotations

import math

from judge.wire.tensor import TensorData, from_torch

MAX_DEPTH = 64
MAX_ITEMS = 2_000_000  # scalars + containers per observation
_TAGS = ("__tensor__", "__float__")


class TooManyItems(ValueError):
    """An observation from the untrusted side holds more values than the parent will walk."""


class ObservationTypeError(TypeError):
    """The value is not plain data; the message says where and what."""


def encode(value: object, tensors: list[TensorData]) -> object:
    """Turn an observation into JSON-ready data, appending tensors to `tensors`."""
    return _Converter(tensors).convert(value, (), 0)


def normalize(value: object) -> object:
    """Validate an observation and return it as the parent would decode it (tuples become
    lists, torch tensors TensorData), in one pass: for judging inside one process."""
    return _Converter(None).convert(value, (), 0)


def _where(path: tuple[object, ...]) -> str:
    return "".join(f"[{p!r}]" for p in path) or "the returned value"


class _Converter:
    """One pass over an observation: exact-type validation, and tagging when encoding."""

    def __init__(self, tensors: list[TensorData] | None) -> None:
        self.tensors = tensors  # None: normalise only (no tags, no tensor list)
        self.budget = MAX_ITEMS

    def convert(self, value: object, path: tuple[object, ...], depth: int) -> object:
        self.budget -= 1
        if self.budget < 0:
            raise ObservationTypeError(f"observation has more than {MAX_ITEMS} items")
        if depth > MAX_DEPTH:
            raise ObservationTypeError(
                f"observation nests deeper than {MAX_DEPTH} at {_where(path)}"
            )
        kind = type(value)
        # isinstance() narrows for the type checker; the exact `kind is` test rejects subclasses.
        if value is None or kind is bool or kind is int or kind is str:
            return value
        if isinstance(value, float) and kind is float:
            if self.tensors is None or math.isfinite(value):
                return value
            return {"__float__": _float_name(value)}
        if isinstance(value, (list, tuple)) and kind in (list, tuple):
            return [self.convert(v, (*path, i), depth + 1) for i, v in enumerate(value)]
        if isinstance(value, dict) and kind is dict:
            return self._dict(value, path, depth)
        if isinstance(value, TensorData) and kind is TensorData:
            return self._tensor(value)
        if f"{kind.__module__}.{kind.__qualname__}" == "torch.Tensor":
            return self._tensor(from_torch(value))
        raise ObservationTypeError(
            f"{_where(path)} is a {kind.__module__}.{kind.__qualname__}; expected plain data "
            "(None, bool, int, float, str, list, dict with str keys) or a torch.Tensor"
        )

    def _dict(
        self, value: dict[object, object], path: tuple[object, ...], depth: int
    ) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ObservationTypeError(
                    f"{_where(path)} has a key of type {type(key).__name__}; keys must be str"
                )
            if key in _TAGS:
                raise ObservationTypeError(f"{_where(path)} uses the reserved key {key!r}")
            out[key] = self.convert(item, (*path, key), depth + 1)
        return out

    def _tensor(self, value: TensorData) -> object:
        if self.tensors is None:
            return value
        self.tensors.append(value)
        return {"__tensor__": len(self.tensors) - 1}


def _float_name(x: float) -> str:
    if math.isnan(x):
        return "nan"
    return "inf" if x > 0 else "-inf"


_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def decode(data: object, tensors: list[TensorData], max_items: int = MAX_ITEMS) -> object:
    """Validate JSON data from the untrusted side and rebuild the observation.

    Raises ValueError naming the first invalid place. `max_items` bounds the parent's
    work: scalars and containers counted, checked as the walk goes."""
    return _Decoder(tensors, max_items).decode(data, None, 0)


# A path is built only when an error needs it: (parent path, key) pairs, O(1) per step.
_Path = tuple[object, object] | None


def _path_text(path: _Path) -> str:
    keys: list[object] = []
    while path is not None:
        path, key = path  # type: ignore[assignment]
        keys.append(key)
    return _where(tuple(reversed(keys)))


class _Decoder:
    def __init__(self, tensors: list[TensorData], max_items: int) -> None:
        self.tensors = tensors
        self.budget = max_items
        self.max_items = max_items

    def decode(self, data: object, path: _Path, depth: int) -> object:
        self.budget -= 1
        if self.budget < 0:
            raise TooManyItems(f"observation has more than {self.max_items} items")
        if depth > MAX_DEPTH:
            raise ValueError(f"observation nests deeper than {MAX_DEPTH}")
        kind = type(data)
        if data is None or kind is bool or kind is int or kind is str:
            return data
        if isinstance(data, float) and kind is float:
            if not math.isfinite(data):
                raise ValueError(f"bare non-finite float at {_path_text(path)}")
            return data
        if isinstance(data, list) and kind is list:
            return [self.decode(v, (path, i), depth + 1) for i, v in enumerate(data)]
        if isinstance(data, dict) and kind is dict:
            if "__tensor__" in data or "__float__" in data:
                return self._tag(data, path)
            return {k: self.decode(v, (path, k), depth + 1) for k, v in data.items()}
        raise ValueError(f"unexpected {kind.__name__} at {_path_text(path)}")

    def _tag(self, data: dict[str, object], path: _Path) -> object:
        if len(data) == 1 and "__tensor__" in data:
            index = data["__tensor__"]
            if type(index) is not int or not 0 <= index < len(self.tensors):
                raise ValueError(f"bad tensor reference at {_path_text(path)}")
            return self.tensors[index]
        name = data.get("__float__")
        if len(data) != 1 or not isinstance(name, str) or name not in _FLOATS:
            raise ValueError(f"malformed tag at {_path_text(path)}")
        return _FLOATS[name]
