"""Observations as plain data: encoding on the untrusted side, strict decoding on the trusted side.

An observation is None, bool, int, float, str, a list or tuple of observations, a dict
with str keys, or a tensor. Types are checked exactly (`type(x) is int`), so a subclass
with a lying __eq__ or a lazy proxy never reaches a checker. Non-finite floats and tensors
become tagged dicts so the JSON stays standard.
"""

from __future__ import annotations

import math
from typing import Any

from judge.tensor import TensorData, from_torch

MAX_DEPTH = 64
MAX_ITEMS = 2_000_000  # scalars + containers per observation
_TAGS = ("__tensor__", "__float__")


class ObservationTypeError(TypeError):
    """The value is not plain data; the message says where and what."""


def encode(value: object, tensors: list[TensorData]) -> object:
    """Turn an observation into JSON-ready data, appending tensors to `tensors`."""
    budget = [MAX_ITEMS]
    return _encode(value, tensors, "", 0, budget)


def _encode(
    value: object, tensors: list[TensorData], path: str, depth: int, budget: list[int]
) -> object:
    budget[0] -= 1
    if budget[0] < 0:
        raise ObservationTypeError(f"observation has more than {MAX_ITEMS} items")
    if depth > MAX_DEPTH:
        raise ObservationTypeError(f"observation nests deeper than {MAX_DEPTH} at {path or 'top'}")
    kind = type(value)
    # isinstance() narrows the type for the checker; the exact `kind is` test rejects subclasses.
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if isinstance(value, float) and kind is float:
        return value if math.isfinite(value) else {"__float__": _float_name(value)}
    if isinstance(value, (list, tuple)) and kind in (list, tuple):
        return [_encode(v, tensors, f"{path}[{i}]", depth + 1, budget) for i, v in enumerate(value)]
    if isinstance(value, dict) and kind is dict:
        return _encode_dict(value, tensors, path, depth, budget)
    if isinstance(value, TensorData) and kind is TensorData:
        tensors.append(value)
        return {"__tensor__": len(tensors) - 1}
    if f"{kind.__module__}.{kind.__qualname__}" == "torch.Tensor":
        tensors.append(from_torch(value))
        return {"__tensor__": len(tensors) - 1}
    where = path or "the returned value"
    raise ObservationTypeError(
        f"{where} is a {kind.__module__}.{kind.__qualname__}; expected plain data "
        "(None, bool, int, float, str, list, dict with str keys) or a torch.Tensor"
    )


def _encode_dict(
    value: dict[Any, Any], tensors: list[TensorData], path: str, depth: int, budget: list[int]
) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, item in value.items():
        if type(key) is not str:
            raise ObservationTypeError(
                f"{path or 'dict'} has a key of type {type(key).__name__}; keys must be str"
            )
        if key in _TAGS:
            raise ObservationTypeError(f"{path or 'dict'} uses the reserved key {key!r}")
        out[key] = _encode(item, tensors, f"{path}[{key!r}]", depth + 1, budget)
    return out


def _float_name(x: float) -> str:
    if math.isnan(x):
        return "nan"
    return "inf" if x > 0 else "-inf"


_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def decode(data: object, tensors: list[TensorData]) -> object:
    """Validate JSON data from the untrusted side and rebuild the observation.

    Raises ValueError naming the first invalid place."""
    return _decode(data, tensors, "", 0)


def _decode(data: object, tensors: list[TensorData], path: str, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise ValueError(f"observation nests deeper than {MAX_DEPTH}")
    kind = type(data)
    if data is None or kind in (bool, int, str):
        return data
    if isinstance(data, float) and kind is float:
        if not math.isfinite(data):
            raise ValueError(f"bare non-finite float at {path or 'top'}")
        return data
    if isinstance(data, list) and kind is list:
        return [_decode(v, tensors, f"{path}[{i}]", depth + 1) for i, v in enumerate(data)]
    if isinstance(data, dict) and kind is dict:
        return _decode_dict(data, tensors, path, depth)
    raise ValueError(f"unexpected {kind.__name__} at {path or 'top'}")


def _decode_dict(
    data: dict[str, object], tensors: list[TensorData], path: str, depth: int
) -> object:
    if len(data) == 1 and "__tensor__" in data:
        index = data["__tensor__"]
        if type(index) is not int or not 0 <= index < len(tensors):
            raise ValueError(f"bad tensor reference at {path or 'top'}")
        return tensors[index]
    if len(data) == 1 and "__float__" in data:
        name = data["__float__"]
        if not isinstance(name, str) or name not in _FLOATS:
            raise ValueError(f"bad float tag at {path or 'top'}")
        return _FLOATS[name]
    if any(k in _TAGS for k in data):
        raise ValueError(f"malformed tag at {path or 'top'}")
    return {k: _decode(v, tensors, f"{path}[{k!r}]", depth + 1) for k, v in data.items()}
