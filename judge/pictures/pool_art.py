"""The block pool of a paging problem's trace: as data for the page's picture, and as
text art for `judge run`.

A paging state (block-table, fork-cow, prefix-cache) shows only the block table of the
sequence the step touched, plus the free queue and, where the problem has them, reference
counts and cached blocks. Who owns every other block is known from the earlier steps: each
step's table is that sequence's latest, so replaying the labels gives every owner. A state
with no block ids (the scheduler's counts, fragmentation's records) has no pool to draw:
`trail` returns None and judge/pictures/bar_art.py draws its counts as bars instead.
"""

from __future__ import annotations

import re

from judge.messages import say
from judge.record import record

# Public cases use pools of a few blocks; past this the grid would be noise, not a picture.
MAX_BLOCKS = 256
# The steps a report carries before the one that differs, for stepping back and forth.
MAX_FRAMES = 12
# The sequence a step's state shows: the driver observes the forked child, not the parent.
_SEQ = re.compile(r"\b(?:seq_id|req_id|child_id)=(-?\d+)")


@record
class Block:
    """One physical block as a state shows it."""

    owners: tuple[int, ...] = ()  # sequences whose latest table holds it, ascending
    ref_count: int | None = None  # None: the problem does not count references
    cached: bool = False
    free_at: int | None = None  # its place in the free queue (0 = the head); None: not free

    def to_dict(self) -> dict[str, object]:
        return {
            "owners": list(self.owners),
            "ref": self.ref_count,
            "cached": self.cached,
            "free_at": self.free_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Block:
        owners, ref, free_at = data.get("owners"), data.get("ref"), data.get("free_at")
        return cls(
            tuple(o for o in owners if type(o) is int) if type(owners) is list else (),
            ref if type(ref) is int else None,
            data.get("cached") is True,
            free_at if type(free_at) is int else None,
        )

    def label(self) -> str:
        """The cell's text art: s0+1x2 (shared by 0 and 1, two references), f@3 c, ..."""
        parts = []
        if self.owners:
            parts.append("s" + "+".join(str(o) for o in self.owners))
        if self.ref_count is not None and self.ref_count != len(self.owners):
            parts.append(f"x{self.ref_count}")
        if self.free_at is not None:
            parts.append(f"f@{self.free_at}")
        if self.cached:
            parts.append("c")
        return " ".join(parts) or "-"


@record
class Pool:
    blocks: tuple[Block, ...]  # indexed by block id
    free: tuple[int, ...]  # the free queue as the state lists it, head first

    def to_dict(self) -> dict[str, object]:
        return {"blocks": [b.to_dict() for b in self.blocks], "free": list(self.free)}

    @classmethod
    def from_dict(cls, data: object) -> Pool:
        if type(data) is not dict:
            raise ValueError("a pool is an object")
        blocks, free = data.get("blocks"), data.get("free")
        if type(blocks) is not list or type(free) is not list:
            raise ValueError("a pool has blocks and free")
        cells = tuple(Block.from_dict(b) for b in blocks if type(b) is dict)
        return cls(cells, tuple(f for f in free if type(f) is int))


@record
class PoolTrail:
    """The pool after each step from `first` to `step` (the first that differs), as
    expected, and after `step` as the submission left it."""

    step: int
    first: int
    ops: tuple[str, ...]  # the labels of steps first..step
    expected: tuple[Pool, ...]  # one per step first..step
    got: Pool
    differs: tuple[int, ...]  # ids of the blocks whose cells differ after `step`

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": "pool",
            "step": self.step,
            "first": self.first,
            "ops": list(self.ops),
            "expected": [p.to_dict() for p in self.expected],
            "got": self.got.to_dict(),
            "differs": list(self.differs),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> PoolTrail:
        step, first, ops = data.get("step"), data.get("first"), data.get("ops")
        expected, differs = data.get("expected"), data.get("differs")
        if type(step) is not int or type(first) is not int or type(ops) is not list:
            raise ValueError("a pool trail has step, first and ops")
        if type(expected) is not list or not expected or type(differs) is not list:
            raise ValueError("a pool trail has expected pools and differs")
        return cls(
            step,
            first,
            tuple(str(op) for op in ops),
            tuple(Pool.from_dict(p) for p in expected),
            Pool.from_dict(data.get("got")),
            tuple(d for d in differs if type(d) is int),
        )


def _ids(value: object) -> list[int] | None:
    if type(value) is not list or any(type(v) is not int for v in value):
        return None
    return value


def _paging_state(entry: object) -> dict[str, object] | None:
    """The step's state when it is a paging state (a touched table and a free queue)."""
    state = entry.get("state") if type(entry) is dict else None
    if type(state) is not dict or _ids(state.get("free_blocks")) is None:
        return None
    return state if _ids(state.get("block_table")) is not None else None


def _seq_of(entry: dict[str, object]) -> int | None:
    found = _SEQ.search(str(entry.get("op", "")))
    return int(found.group(1)) if found else None


def _with_table(
    tables: dict[int, tuple[int, ...]], entry: dict[str, object], state: dict[str, object]
) -> dict[int, tuple[int, ...]]:
    """Every sequence's latest table once this step's own table is known."""
    seq = _seq_of(entry)
    if seq is None:
        return tables
    table = tuple(_ids(state["block_table"]) or ())
    out = {s: t for s, t in tables.items() if s != seq}
    return {**out, seq: table} if table else out


def _pool(state: dict[str, object], tables: dict[int, tuple[int, ...]], n: int) -> Pool:
    free = tuple(_ids(state["free_blocks"]) or ())
    refs = _ids(state.get("ref_counts"))
    cached = set(_ids(state.get("cached_blocks")) or ())
    blocks = []
    for b in range(n):
        owners = tuple(sorted(s for s, t in tables.items() if b in t))
        ref = refs[b] if refs is not None and b < len(refs) else None
        blocks.append(Block(owners, ref, b in cached, free.index(b) if b in free else None))
    return Pool(tuple(blocks), free)


def trail(args: object, expected: object, got: object, step: int) -> PoolTrail | None:
    """The pool trail of a paging trace whose first difference is at `step`; None where
    the states hold no block ids or either side cannot be read as a pool."""
    n = args.get("num_blocks") if type(args) is dict else None
    if type(n) is not int or not 0 < n <= MAX_BLOCKS:
        return None
    if type(expected) is not list or type(got) is not list or not 0 <= step < len(expected):
        return None
    tables: dict[int, tuple[int, ...]] = {}
    pools: list[Pool] = []
    for entry in expected[: step + 1]:
        state = _paging_state(entry)
        if state is None:
            return None
        before = tables
        tables = _with_table(tables, entry, state)
        pools.append(_pool(state, tables, n))
    got_state = _paging_state(got[step]) if step < len(got) else None
    if got_state is None:
        return None
    mine = _pool(got_state, _with_table(before, expected[step], got_state), n)
    want = pools[-1]
    differs = tuple(b for b in range(n) if want.blocks[b] != mine.blocks[b])
    first = max(0, step + 1 - MAX_FRAMES)
    labels = tuple(str(e.get("op", "")) for e in expected[first : step + 1])
    return PoolTrail(step, first, labels, tuple(pools[first:]), mine, differs)


def art_lines(picture: dict[str, object], lang: str, per_row: int = 8) -> list[str]:
    """The pool after the differing step as text: expected above got, block by block, a
    "! " before each cell that differs, then both free queues."""
    shown = PoolTrail.from_dict(picture)
    want, mine = shown.expected[-1], shown.got
    cells = [b.label() for b in want.blocks] + [b.label() for b in mine.blocks]
    width = max([len(c) for c in cells] + [4]) + 3  # room for a mark, "! "
    keys = ("picture.pool.block", "picture.expected", "picture.got")
    names = [say(key).render(lang) for key in keys]
    pad = max(_width(name) for name in names) + 2
    lines = ["  " + say("picture.pool.head", step=shown.step, op=shown.ops[-1]).render(lang)]
    for start in range(0, len(want.blocks), per_row):
        ids = range(start, min(start + per_row, len(want.blocks)))
        lines.append("    " + _pad(names[0], pad) + "".join(f"#{b}".rjust(width) for b in ids))
        for name, pool in ((names[1], want), (names[2], mine)):
            row = "".join(_cell(pool.blocks[b].label(), b in shown.differs, width) for b in ids)
            lines.append(("    " + _pad(name, pad) + row).rstrip())
    queues = {k: " ".join(str(b) for b in pool.free) for k, pool in (("want", want), ("got", mine))}
    lines.append("    " + say("picture.pool.free", **queues).render(lang))
    lines.append("    " + say("picture.pool.legend").render(lang))
    return lines


def _cell(text: str, differs: bool, width: int) -> str:
    # A space after the mark: "!f@2" reads as one word.
    return ("! " + text if differs else text).rjust(width)


def _width(text: str) -> int:
    """Columns a label takes in a terminal: a CJK character takes two."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))
