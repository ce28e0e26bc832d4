"""Length-prefixed frames of JSON plus raw tensor bytes; never pickle.

    frame := b"JDG1" | header length (u32, big-endian) | header (UTF-8 JSON) | tensor bytes

The header is a JSON object. If it carries "tensors": [{"dtype", "shape"}, ...], the
raw bytes of each follow the header in order. The reader validates every size before it
buffers anything, so a hostile child cannot make the parent allocate without bound.
"""

from __future__ import annotations

import math
import os
import struct

from judge.errors import FrameTooLarge, ProtocolError
from judge.wire import json_text
from judge.wire.tensor import DTYPES, TensorData

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator  # collections is 1.5 ms of a child's start

MAGIC = b"JDG1"
PREFIX = struct.Struct(">4sI")
MAX_HEADER_BYTES = 16 << 20
DEFAULT_MAX_PAYLOAD = 256 << 20


class FrameLimits:
    """The most one frame may carry: header bytes and tensor payload bytes. A plain slotted
    class for the child's start-up time (see TensorData)."""

    __slots__ = ("header_bytes", "items", "payload_bytes")

    def __init__(
        self,
        header_bytes: int = MAX_HEADER_BYTES,
        payload_bytes: int = 0,
        items: int = 2_000_000,
    ) -> None:
        self.header_bytes = min(header_bytes, MAX_HEADER_BYTES)
        self.payload_bytes = payload_bytes
        self.items = items  # values in the decoded observation (judge.wire.codec.decode)

    def __repr__(self) -> str:
        return (
            f"FrameLimits(header_bytes={self.header_bytes}, "
            f"payload_bytes={self.payload_bytes}, items={self.items})"
        )


class Frame:
    """One decoded frame. A plain slotted class, not a record, as the child imports it at
    every start (see TensorData)."""

    __slots__ = ("header", "tensors")

    def __init__(self, header: dict[str, object], tensors: tuple[TensorData, ...] = ()) -> None:
        self.header = header
        self.tensors = tensors


def encode_frame(
    header: dict[str, object], tensors: list[TensorData] | tuple[TensorData, ...] = ()
) -> bytes:
    """Serialise one frame. `header` must be JSON data; tensors are described in it."""
    if tensors:
        header = {
            **header,
            "tensors": [{"dtype": t.dtype, "shape": list(t.shape)} for t in tensors],
        }
    body = json_text.dumps(header).encode()
    if len(body) > MAX_HEADER_BYTES:
        raise ProtocolError(f"frame header of {len(body)} bytes exceeds {MAX_HEADER_BYTES}")
    return b"".join([PREFIX.pack(MAGIC, len(body)), body, *(t.data for t in tensors)])


class FrameReader:
    """Incremental parser: feed bytes as they arrive, take complete frames out.

    `limits` may be changed between frames (the parent sets each case's own limits)."""

    def __init__(self, max_payload: int = DEFAULT_MAX_PAYLOAD) -> None:
        self._buf = bytearray()
        self.limits = FrameLimits(MAX_HEADER_BYTES, max_payload)
        self._pending: (
            tuple[dict[str, object], list[tuple[str, tuple[int, ...], int]], int] | None
        ) = None

    def feed(self, data: bytes) -> Iterator[Frame]:
        self._buf += data
        while True:
            frame = self._next()
            if frame is None:
                return
            yield frame

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def _next(self) -> Frame | None:
        if self._pending is None:
            if len(self._buf) < PREFIX.size:
                return None
            magic, length = PREFIX.unpack_from(self._buf)
            if magic != MAGIC:
                raise ProtocolError("result channel carried bytes that are not a judge frame")
            if length > self.limits.header_bytes:
                raise FrameTooLarge(
                    f"a frame header of {length} bytes is over the "
                    f"{self.limits.header_bytes} allowed"
                )
            if len(self._buf) < PREFIX.size + length:
                return None
            header = _parse_header(bytes(self._buf[PREFIX.size : PREFIX.size + length]))
            specs = _tensor_specs(header, self.limits.payload_bytes)
            del self._buf[: PREFIX.size + length]
            self._pending = (header, specs, sum(s[2] for s in specs))
        header, specs, total = self._pending
        if len(self._buf) < total:
            return None
        tensors, offset = [], 0
        for dtype, shape, nbytes in specs:
            tensors.append(TensorData(dtype, shape, bytes(self._buf[offset : offset + nbytes])))
            offset += nbytes
        del self._buf[:total]
        self._pending = None
        header.pop("tensors", None)
        return Frame(header, tuple(tensors))


def _parse_header(raw: bytes) -> dict[str, object]:
    try:
        header = json_text.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"frame header is not valid JSON: {exc}") from None
    if type(header) is not dict:
        raise ProtocolError("frame header is not a JSON object")
    return header


def _reject_constant(name: str) -> object:
    raise ValueError(f"non-standard JSON constant {name}")


def _tensor_specs(
    header: dict[str, object], max_payload: int
) -> list[tuple[str, tuple[int, ...], int]]:
    raw = header.get("tensors", [])
    if type(raw) is not list:
        raise ProtocolError("frame 'tensors' is not a list")
    specs, total = [], 0
    for i, item in enumerate(raw):
        if type(item) is not dict or set(item) != {"dtype", "shape"}:
            raise ProtocolError(f"tensor {i}: header must be {{dtype, shape}}")
        dtype, shape = item["dtype"], item["shape"]
        if dtype not in DTYPES:
            raise ProtocolError(f"tensor {i}: unsupported dtype {dtype!r}")
        if (
            type(shape) is not list
            or len(shape) > 8
            or any(type(d) is not int or d < 0 for d in shape)
        ):
            raise ProtocolError(f"tensor {i}: bad shape {shape!r}")
        nbytes = math.prod(shape) * DTYPES[dtype][0]
        total += nbytes
        if total > max_payload:
            raise FrameTooLarge(f"tensors of {total} bytes are over the {max_payload} allowed")
        specs.append((dtype, tuple(shape), nbytes))
    return specs


def write_frame(fd: int, frame: bytes) -> None:
    """Blocking write of a whole frame (the child's side)."""
    view = memoryview(frame)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_frame(fd: int, reader: FrameReader) -> Frame | None:
    """Blocking read of the next frame (the child's side); None at end of stream."""
    while True:
        for frame in reader.feed(b""):
            return frame
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        for frame in reader.feed(chunk):
            return frame
