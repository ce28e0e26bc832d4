"""How many bytes a run's result channel may carry, derived from the problem itself.

A correct answer is about the size of the reference's observation, so each case's frame
is capped at a multiple of that size (with a floor for error messages and small wrong
answers), and the whole run at the sum of its cases. The caps are checked from a frame's
prefix and tensor list, before its header or payload is buffered: a child that sends a
256 MiB tensor for a problem whose answers are a few numbers gets OLE, and the trusted
parent never holds more than the problem's own size.
"""

from __future__ import annotations

import json

from judge.record import record
from judge.wire.codec import encode
from judge.wire.protocol import PREFIX, FrameLimits
from judge.wire.tensor import TensorData

# Error frames carry a message (2,000 characters) and a trimmed traceback (4,000): 64 KiB
# holds them escaped, and parsing it costs the parent well under a millisecond.
HEADER_FLOOR = 64 << 10
PAYLOAD_FLOOR = 1 << 20  # a small tensor where a number was expected is WA, not OLE
HEADER_FACTOR = 8  # a wrong answer may be longer than the right one (e.g. floats as text)
# The parent's walk over a decoded answer is bounded by its values, not only its bytes
# (1 MiB of "[[[[...]]]]" is half a million lists).
ITEMS_FLOOR = 10_000
ITEMS_FACTOR = 8
PAYLOAD_FACTOR = 2  # float64 where float32 was expected is WA, not OLE
LOAD_ANSWER = FrameLimits(header_bytes=64 << 10, payload_bytes=0)


@record
class ResultBudget:
    """Per-case frame limits and the total the result channel may carry in one run."""

    per_case: dict[str, FrameLimits]
    total_bytes: int

    def for_case(self, name: str) -> FrameLimits:
        return self.per_case[name]


def budget_for(expected: dict[str, object]) -> ResultBudget:
    """The budget for a run whose cases expect `expected` (case name -> canonical value)."""
    per_case = {name: case_limits(value) for name, value in expected.items()}
    total = PREFIX.size + LOAD_ANSWER.header_bytes
    total += sum(PREFIX.size + c.header_bytes + c.payload_bytes for c in per_case.values())
    return ResultBudget(per_case, total)


def case_limits(expected: object) -> FrameLimits:
    text, payload = _encoded(expected)
    # Values in the JSON text, counted in C: one per comma plus one per container opened.
    items = text.count(",") + text.count("[") + text.count("{") + 1
    return FrameLimits(
        header_bytes=max(HEADER_FLOOR, HEADER_FACTOR * len(text)),
        payload_bytes=max(PAYLOAD_FLOOR, PAYLOAD_FACTOR * payload),
        items=max(ITEMS_FLOOR, ITEMS_FACTOR * items),
    )


def _encoded(expected: object) -> tuple[str, int]:
    """(JSON text, tensor bytes) of the answer as the child would send it."""
    try:  # plain finite data (every browser-tier trace): json's C encoder alone, no walk
        return json.dumps(expected, separators=(",", ":"), allow_nan=False), 0
    except (TypeError, ValueError):  # tensors or non-finite floats: tag them as the wire does
        tensors: list[TensorData] = []
        text = json.dumps(encode(expected, tensors), separators=(",", ":"))
        return text, sum(len(t.data) for t in tensors)
