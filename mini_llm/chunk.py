"""What an engine hands PoolRunner and what the runner records of it: a chunk of one
request's tokens with its block table, and the record of the chunk a step computed.

Plain values, apart from the runner (mini_llm/pool_runner.py) that computes over them:
they do no exercise's part, so a warm worker imports them once for every job it forks,
where a job importing them for itself paid about 2 ms of its own (creating two dataclasses
in a fresh fork, on a 2-core Xeon).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Chunk:
    """One request's tokens at positions start .. start + len(tokens) - 1, and the blocks
    that hold (or will hold) its positions 0 .. start + len(tokens) - 1."""

    request: int
    tokens: tuple[int, ...]
    start: int
    table: tuple[int, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.tokens)


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """What one step computed for one request: the timeline's cell."""

    request: int
    start: int
    length: int
    blocks: tuple[int, ...]
