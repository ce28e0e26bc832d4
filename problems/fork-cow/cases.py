"""Cases for fork-cow: append/fork/free traces, every step compared with the reference.

An operation is ["append", seq_id, n], ["fork", parent_id, child_id] or ["free", seq_id].
`run` applies them one by one and records, per step, the operation, its return value,
the copies it caused and the observable state.
"""

import random

_BLOCK_SIZES = (1, 2, 3, 4, 8, 16)


def _append(seq: int, n: int) -> list:
    return ["append", seq, n]


def _fork(parent: int, child: int) -> list:
    return ["fork", parent, child]


def _free(seq: int) -> list:
    return ["free", seq]


def _case(name: str, num_blocks: int, block_size: int, ops: list[list]) -> dict:
    return {"name": name, "args": {"num_blocks": num_blocks, "block_size": block_size, "ops": ops}}


def public_cases() -> list[dict]:
    return [
        _case("fork-shares-blocks", 8, 4, [_append(0, 6), _fork(0, 1), _free(0), _free(1)]),
        _case(
            "copy-on-write",
            8,
            4,
            [_append(0, 6), _fork(0, 1), _append(1, 1), _append(0, 1), _append(0, 2), _free(0)],
        ),
        _case(
            "full-block-is-not-copied",
            6,
            4,
            [_append(0, 8), _fork(0, 1), _append(1, 1), _append(0, 3), _free(0), _free(1)],
        ),
        _case(
            "out-of-memory-counts-the-copy",
            3,
            4,
            [_append(0, 5), _fork(0, 1), _append(1, 4), _append(1, 3), _fork(0, 1), _fork(5, 6)],
        ),
    ]


class _TraceWriter:
    """Writes a random trace; tracks which ids probably exist (an append may still fail)."""

    def __init__(self, rng: random.Random, block_size: int) -> None:
        self.rng = rng
        self.block_size = block_size
        self.live: list[int] = []
        self.next_id = 0
        self.ops: list[list] = []

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def step(self) -> None:
        rng, live = self.rng, self.live
        roll = rng.random()
        if not live or roll < 0.08:
            seq = self.new_id()
            live.append(seq)
            self.ops.append(_append(seq, rng.randint(1, 3 * self.block_size)))
        elif roll < 0.30:
            self.fork(rng.choice(live))
        elif roll < 0.30 + 0.02 * len(live):
            seq = live.pop(rng.randrange(len(live)))
            self.ops.append(_free(seq))
        elif roll < 0.95:
            self.ops.append(_append(rng.choice(live), rng.randint(1, 2)))
        else:
            self.ops.append(_append(rng.choice(live), rng.randint(1, 2 * self.block_size)))

    def fork(self, parent: int) -> None:
        if self.rng.random() < 0.05:  # an invalid fork: the child id is taken or unknown
            self.ops.append(_fork(parent, self.rng.choice(self.live)))
            return
        child = self.new_id()
        self.live.append(child)
        self.ops.append(_fork(parent, child))


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        writer = _TraceWriter(rng, block_size)
        for _ in range(rng.randint(150, 300)):
            writer.step()
        cases.append(_case(f"random-{i:02d}", rng.randint(6, 24), block_size, writer.ops))
    return cases


def _call(alloc, op: list) -> tuple[str, object, int]:
    """Apply one operation; return its label, its result and the sequence to observe."""
    kind = op[0]
    if kind == "append":
        return f"append(seq_id={op[1]}, n={op[2]})", alloc.append(op[1], op[2]), op[1]
    if kind == "fork":
        return f"fork(parent_id={op[1]}, child_id={op[2]})", alloc.fork(op[1], op[2]), op[2]
    return f"free(seq_id={op[1]})", list(alloc.free(op[1])), op[1]


def run(sub, args: dict) -> list[dict]:
    alloc = sub.CowAllocator(args["num_blocks"], args["block_size"])
    steps = []
    for op in args["ops"]:
        label, result, seq = _call(alloc, op)
        # Copies, not references: a later step must not rewrite an earlier observation.
        state = {
            "copies": [list(pair) for pair in alloc.take_copies()],
            "block_table": list(alloc.block_table(seq)),
            "num_tokens": alloc.num_tokens(seq),
            "ref_counts": [alloc.ref_count(b) for b in range(args["num_blocks"])],
            "free_blocks": list(alloc.free_blocks()),
        }
        steps.append({"op": label, "result": result, "state": state})
    return steps
