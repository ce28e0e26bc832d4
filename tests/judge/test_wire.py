"""Observations and frames crossing from the untrusted child: strict in every direction."""

from __future__ import annotations

import json
import math
import pickle
import struct

import pytest

from judge.errors import ProtocolError
from judge.wire.codec import ObservationTypeError, decode, encode
from judge.wire.protocol import MAGIC, PREFIX, FrameReader, encode_frame
from judge.wire.tensor import TensorData


def roundtrip(value: object) -> object:
    tensors: list[TensorData] = []
    data = json.loads(json.dumps(encode(value, tensors)))
    return decode(data, tensors)


def test_plain_data_round_trips_and_tuples_become_lists() -> None:
    value = {"a": [1, 2.5, "x", None, True], "b": (1, (2, 3)), "c": {"d": -0.0}}
    assert roundtrip(value) == {"a": [1, 2.5, "x", None, True], "b": [1, [2, 3]], "c": {"d": -0.0}}
    assert math.copysign(1, roundtrip(-0.0)) == -1  # type: ignore[arg-type]


def test_non_finite_floats_survive_as_tags() -> None:
    out = roundtrip([math.nan, math.inf, -math.inf])
    assert isinstance(out, list) and math.isnan(out[0]) and out[1:] == [math.inf, -math.inf]


class LyingInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class Anything:
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize(
    "value", [LyingInt(3), Anything(), {1: "int key"}, b"bytes", {1, 2}, [Anything()]]
)
def test_values_that_are_not_plain_data_are_refused(value: object) -> None:
    with pytest.raises(ObservationTypeError):
        encode(value, [])


def test_reserved_tag_keys_in_a_submission_dict_are_refused() -> None:
    with pytest.raises(ObservationTypeError, match="reserved key"):
        encode({"__tensor__": 0}, [])


def test_deep_nesting_is_refused_on_both_sides() -> None:
    deep: list[object] = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ObservationTypeError, match="nests deeper"):
        encode(deep, [])
    with pytest.raises(ValueError, match="nests deeper"):
        decode(deep, [])


@pytest.mark.parametrize(
    "data",
    [
        {"__tensor__": 5},  # points at no tensor
        {"__float__": "zero"},
        {"__tensor__": 0, "x": 1},
        float("nan"),  # bare non-finite from a forged header
        b"raw",
    ],
)
def test_decode_rejects_forged_structures(data: object) -> None:
    with pytest.raises(ValueError):
        decode(data, [])


def frame_bytes(header: dict[str, object], payload: bytes = b"") -> bytes:
    body = json.dumps(header).encode()
    return PREFIX.pack(MAGIC, len(body)) + body + payload


def test_frames_round_trip_with_tensors_split_across_reads() -> None:
    t = TensorData("float32", (2, 2), struct.pack("<4f", 1, 2, 3, 4))
    raw = encode_frame({"type": "result", "observation": {"__tensor__": 0}}, [t]) * 2
    reader = FrameReader()
    frames = [f for i in range(len(raw)) for f in reader.feed(raw[i : i + 1])]
    assert len(frames) == 2
    assert frames[0].tensors == (t,)
    assert "tensors" not in frames[0].header


def test_pickle_bytes_on_the_result_channel_are_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not a judge frame"):
        list(FrameReader().feed(pickle.dumps({"verdict": "AC"})))


def test_fake_text_result_line_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        list(FrameReader().feed(b'{"verdict": "AC", "passed": 10}\n'))


def test_huge_header_length_is_refused_before_buffering() -> None:
    with pytest.raises(ProtocolError, match="over the"):
        list(FrameReader().feed(PREFIX.pack(MAGIC, 1 << 30)))


def test_huge_tensor_is_refused_before_its_bytes_arrive() -> None:
    header = {"type": "result", "tensors": [{"dtype": "float32", "shape": [1 << 20, 1 << 20]}]}
    with pytest.raises(ProtocolError, match="over the"):
        list(FrameReader(max_payload=1 << 20).feed(frame_bytes(header)))


@pytest.mark.parametrize(
    "spec",
    [
        {"dtype": "object", "shape": [1]},
        {"dtype": "float32", "shape": [-1]},
        {"dtype": "float32", "shape": "big"},
        {"dtype": "float32", "shape": [1], "strides": [1]},
        {"dtype": "float32", "shape": [1] * 9},
    ],
)
def test_bad_tensor_headers_are_refused(spec: dict[str, object]) -> None:
    with pytest.raises(ProtocolError):
        list(FrameReader().feed(frame_bytes({"type": "result", "tensors": [spec]})))


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"a": NaN}', b"\xff\xfe"])
def test_non_object_or_invalid_json_headers_are_refused(body: bytes) -> None:
    with pytest.raises(ProtocolError):
        list(FrameReader().feed(PREFIX.pack(MAGIC, len(body)) + body))


def test_tensor_data_validates_its_own_size() -> None:
    with pytest.raises(ValueError, match="needs 8 bytes"):
        TensorData("float32", (2,), b"1234")
