"""Cases for block-table: allocate/free traces, every step compared with the reference.

An operation is ["append", seq_id, n] or ["free", seq_id]. `run` applies them one by
one and records, per step, the operation, its return value and the observable state.
"""

import random

_BLOCK_SIZES = (1, 2, 3, 4, 8, 16)


def _append(seq: int, n: int) -> list:
    return ["append", seq, n]


def _free(seq: int) -> list:
    return ["free", seq]


def public_cases() -> list[dict]:
    return [
        {
            "name": "grow-one-sequence",
            "args": {
                "num_blocks": 4,
                "block_size": 4,
                "ops": [_append(0, 3), _append(0, 1), _append(0, 1), _append(0, 8), _append(0, 4)],
            },
        },
        {
            "name": "free-order",
            "args": {
                "num_blocks": 6,
                "block_size": 2,
                "ops": [
                    _append(1, 5),
                    _append(2, 2),
                    _free(1),
                    _append(3, 3),
                    _free(2),
                    _append(3, 4),
                    _append(3, 6),
                ],
            },
        },
        {
            "name": "out-of-memory-changes-nothing",
            "args": {
                "num_blocks": 3,
                "block_size": 4,
                "ops": [
                    _append(1, 6),
                    _append(2, 9),
                    _append(2, 4),
                    _append(1, 3),
                    _free(7),
                    _free(2),
                    _append(1, 3),
                ],
            },
        },
    ]


def _random_ops(rng: random.Random, n_ops: int, block_size: int, n_seqs: int) -> list[list]:
    ops: list[list] = []
    for _ in range(n_ops):
        seq = rng.randrange(n_seqs)
        roll = rng.random()
        if roll < 0.18:
            ops.append(_free(seq))
        elif roll < 0.70:
            ops.append(_append(seq, rng.randint(1, 2)))  # decode-sized growth
        else:
            ops.append(_append(seq, rng.randint(1, 3 * block_size)))  # prefill-sized growth
    return ops


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        args = {
            "num_blocks": rng.randint(4, 24),
            "block_size": block_size,
            "ops": _random_ops(rng, rng.randint(150, 300), block_size, rng.randint(2, 10)),
        }
        cases.append({"name": f"random-{i:02d}", "args": args})
    return cases


def _step(alloc, op: list) -> dict:
    kind, seq = op[0], op[1]
    if kind == "append":
        label = f"append(seq_id={seq}, n={op[2]})"
        result = alloc.append(seq, op[2])
    else:
        label = f"free(seq_id={seq})"
        result = list(alloc.free(seq))
    # Copies, not references: a later step must not rewrite an earlier observation.
    state = {
        "block_table": list(alloc.block_table(seq)),
        "num_tokens": alloc.num_tokens(seq),
        "free_blocks": list(alloc.free_blocks()),
    }
    return {"op": label, "result": result, "state": state}


def run(sub, args: dict) -> list[dict]:
    alloc = sub.BlockAllocator(args["num_blocks"], args["block_size"])
    steps = []  # by this name: if a call raises, the judge counts it to say which step
    for op in args["ops"]:
        steps.append(_step(alloc, op))
    return steps
