"""A tensor as plain bytes with a dtype and a shape: what crosses the process boundary.

Kept free of torch so the trusted side can validate and compare tensors without it.
"""

from __future__ import annotations

import math
import struct
import sys

# dtype name -> (item size in bytes, struct format or None for bfloat16)
DTYPES: dict[str, tuple[int, str | None]] = {
    "float64": (8, "d"),
    "float32": (4, "f"),
    "float16": (2, "e"),
    "bfloat16": (2, None),
    "int64": (8, "q"),
    "int32": (4, "i"),
    "int16": (2, "h"),
    "int8": (1, "b"),
    "uint8": (1, "B"),
    "bool": (1, "?"),
}
FLOAT_DTYPES = frozenset({"float64", "float32", "float16", "bfloat16"})
MAX_DIMS = 8


class TensorData:
    """A dense, row-major (C-contiguous), little-endian tensor; immutable.

    Written out by hand rather than as a record (judge/record.py): the untrusted child
    imports this module at every start, and its type checks its fields as it is made."""

    __slots__ = ("data", "dtype", "shape")
    dtype: str
    shape: tuple[int, ...]
    data: bytes

    def __init__(self, dtype: str, shape: tuple[int, ...], data: bytes) -> None:
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "data", data)
        self._validate()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("TensorData is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not TensorData:
            return NotImplemented
        return (self.dtype, self.shape, self.data) == (other.dtype, other.shape, other.data)

    def __hash__(self) -> int:
        return hash((self.dtype, self.shape, self.data))

    def __repr__(self) -> str:
        return f"TensorData({self.dtype!r}, {self.shape!r}, <{len(self.data)} bytes>)"

    def _validate(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"unsupported tensor dtype {self.dtype!r}")
        if len(self.shape) > MAX_DIMS:
            raise ValueError(f"tensor has {len(self.shape)} dimensions; at most {MAX_DIMS}")
        for d in self.shape:
            if type(d) is not int or d < 0:
                raise ValueError(f"tensor shape {self.shape!r} must hold non-negative ints")
        if len(self.data) != self.numel * self.itemsize:
            raise ValueError(
                f"tensor {self.dtype}{list(self.shape)} needs {self.numel * self.itemsize} "
                f"bytes, got {len(self.data)}"
            )

    @property
    def itemsize(self) -> int:
        return DTYPES[self.dtype][0]

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def values(self) -> list[float] | list[int] | list[bool]:
        """The elements in row-major order as Python numbers."""
        fmt = DTYPES[self.dtype][1]
        if fmt is None:  # bfloat16: the high half of a float32
            halves = struct.unpack(f"<{self.numel}H", self.data)
            return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves]
        return list(struct.unpack(f"<{self.numel}{fmt}", self.data))

    def index(self, flat: int) -> tuple[int, ...]:
        """The multi-dimensional index of a flat element position."""
        out = []
        for dim in reversed(self.shape):
            out.append(flat % dim if dim else 0)
            flat = flat // dim if dim else 0
        return tuple(reversed(out))

    def describe(self) -> str:
        return f"tensor({self.dtype}, shape={list(self.shape)})"


def from_torch(t: object) -> TensorData:
    """Copy a torch.Tensor into TensorData.

    torch is taken from sys.modules, never imported: a tensor exists only where torch is
    loaded already, and the core stays standard-library only (it also runs in Pyodide)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(t, torch.Tensor):
        raise TypeError("not a tensor")
    dtype = str(t.dtype).removeprefix("torch.")
    if dtype not in DTYPES:
        raise ValueError(f"unsupported tensor dtype {dtype!r}")
    flat = t.detach().to("cpu").contiguous().reshape(-1)
    raw = flat.view(torch.uint8) if flat.numel() else torch.empty(0, dtype=torch.uint8)
    return TensorData(dtype, tuple(int(d) for d in t.shape), bytes(raw.numpy().tobytes()))
