"""Cases for swap-preemption: arrival traces run step by step, every step compared.

A case gives the engine limits (the GPU pool, the CPU pool) and requests
[req_id, arrival_step, prompt_len, output_len] sorted by (arrival_step, req_id). `run`
adds each request at the start of its arrival step, calls step() once per step and
records the schedule, the swaps and both pools after it. Then it runs the same trace
again on a fresh engine without a CPU pool (every preemption recomputes) and appends one
summary step comparing what the two runs moved and recomputed.
"""

import random

_BLOCK_SIZES = (1, 2, 4, 8, 16)
_MAX_LEN = 96  # tokens per request, so that a trace stays a few hundred steps long
_LIMITS = ("num_blocks", "block_size", "max_num_seqs", "max_num_batched_tokens", "num_cpu_blocks")


def _case(name: str, limits: tuple[int, int, int, int, int], requests: list[list[int]]) -> dict:
    args: dict = dict(zip(_LIMITS, limits, strict=True))
    args["requests"] = requests
    return {"name": name, "args": args}


def public_cases() -> list[dict]:
    # limits: (num_blocks, block_size, max_num_seqs, max_num_batched_tokens, num_cpu_blocks)
    return [
        _case(
            "prefill-decode-finish",
            (8, 4, 4, 16, 8),
            [[0, 0, 3, 3], [1, 0, 5, 2], [2, 1, 2, 1]],
        ),
        _case(
            "head-of-line-blocking",
            (16, 4, 4, 8, 8),
            [[0, 0, 6, 2], [1, 0, 5, 1], [2, 0, 1, 1]],
        ),
        _case(
            "swap-out-the-newest",
            (4, 2, 2, 16, 4),
            [[0, 0, 3, 4], [1, 0, 3, 4], [2, 0, 1, 1]],
        ),
        _case(
            "partial-last-block-is-copied",
            (4, 4, 2, 16, 8),
            [[0, 0, 8, 4], [1, 0, 5, 3]],
        ),
        _case(
            "requester-swaps-itself-out",
            (3, 2, 2, 8, 4),
            [[0, 0, 3, 3], [1, 0, 2, 4]],
        ),
        _case(
            "swapped-come-back-first-in-first-out",
            (6, 2, 3, 16, 8),
            [[0, 0, 3, 5], [1, 0, 3, 5], [2, 0, 2, 6]],
        ),
        _case(
            "resume-needs-a-block-for-its-decode",
            (5, 2, 2, 16, 4),
            [[0, 0, 3, 4], [1, 0, 3, 4], [2, 3, 1, 1]],
        ),
        _case(
            "cpu-too-small-falls-back-to-recompute",
            (6, 2, 3, 16, 3),
            [[0, 0, 3, 5], [1, 0, 3, 5], [2, 0, 3, 5], [3, 1, 1, 1]],
        ),
        _case(
            "cpu-blocks-come-back-on-swap-in",
            (4, 2, 2, 16, 2),
            [[0, 0, 3, 4], [1, 0, 3, 4], [2, 5, 3, 4], [3, 5, 3, 4]],
        ),
        _case(
            "no-cpu-pool-is-recompute",
            (4, 2, 2, 16, 0),
            [[0, 0, 3, 4], [1, 0, 3, 4], [2, 0, 1, 1]],
        ),
    ]


def _random_requests(rng: random.Random, count: int, max_len: int) -> list[list[int]]:
    """Requests whose longest run (prompt + output - 1 tokens) fits the engine alone; the
    outputs are long, so running requests grow into each other and get preempted."""
    requests = []
    arrival = 0
    for req_id in range(count):
        arrival += rng.choice((0, 0, 0, 1, 1, 2, 4))  # bursts and gaps
        prompt = rng.randint(1, max(1, max_len // 3))
        output = rng.randint(1, max_len - prompt + 1)
        requests.append([req_id, arrival, prompt, output])
    return requests


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        num_blocks = rng.randint(4, 16)
        # From a pool too small to hold anyone (every preemption recomputes) to one that
        # holds everything; most in between, so swaps and fallbacks mix in one trace.
        cpu_share = rng.choice((0, 1, 2, 2, 4, 8))
        num_cpu_blocks = num_blocks * cpu_share // 4
        max_num_seqs = rng.randint(4, 8)
        pool_tokens = num_blocks * block_size
        max_tokens = max(max_num_seqs, rng.randint(pool_tokens // 3, pool_tokens))
        # A few requests at this length overflow the pool, so preemption is common.
        max_len = max(2, min(max_tokens, pool_tokens // rng.choice((1, 2)), _MAX_LEN))
        requests = _random_requests(rng, rng.randint(20, 40), max_len)
        limits = (num_blocks, block_size, max_num_seqs, max_tokens, num_cpu_blocks)
        cases.append(_case(f"random-{i:02d}", limits, requests))
    return cases


def _step_limit(requests: list[list[int]]) -> int:
    """Once every request has arrived, each step with work left yields at least one token
    (the first running request always fits, and with none running the head of the swapped
    or waiting queue does), so the reference drains within this many steps; a submission
    that does not is cut off here and differs in length."""
    return max(r[1] for r in requests) + sum(r[3] for r in requests) + 2


def _trace(sub, args: dict, num_cpu_blocks: int) -> list[dict]:
    """Run the whole trace on a fresh engine; one {"op", "result", "state"} per step."""
    sched = sub.Scheduler(
        args["num_blocks"],
        args["block_size"],
        args["max_num_seqs"],
        args["max_num_batched_tokens"],
        num_cpu_blocks,
    )
    pending = list(args["requests"])
    steps = []
    for t in range(_step_limit(pending)):
        arrived = [r for r in pending if r[1] == t]
        for req_id, _, prompt_len, output_len in arrived:
            sched.add_request(req_id, prompt_len, output_len)
        out = sched.step()
        # Copies, not references: a later step must not rewrite an earlier observation.
        result = {
            key: [list(pair) for pair in out[key]]
            for key in ("scheduled", "swapped_out", "swapped_in", "dropped")
        }
        result["finished"] = list(out["finished"])
        state = {
            "running": list(sched.running()),
            "swapped": list(sched.swapped()),
            "waiting": list(sched.waiting()),
            "num_free_blocks": sched.num_free_blocks(),
            "num_free_cpu_blocks": sched.num_free_cpu_blocks(),
        }
        label = "".join(f"add_request({r[0]}, {r[2]}, {r[3]}), " for r in arrived) + "step()"
        steps.append({"op": label, "result": result, "state": state})
        idle = not (state["running"] or state["swapped"] or state["waiting"])
        if t >= pending[-1][1] and idle:
            break
    return steps


def _totals(steps: list[dict]) -> dict:
    """What a run cost: blocks copied each way, and tokens whose KV was dropped (each is
    computed again when its request is re-admitted)."""

    def total(key: str) -> int:
        return sum(n for step in steps for _, n in step["result"][key])

    return {
        "steps": len(steps),
        "blocks_out": total("swapped_out"),
        "blocks_in": total("swapped_in"),
        "tokens_recomputed": total("dropped"),
    }


def run(sub, args: dict) -> list[dict]:
    steps = _trace(sub, args, args["num_cpu_blocks"])
    recompute = _trace(sub, args, 0)  # the same engine without a CPU pool
    summary = {"swap": _totals(steps), "recompute": _totals(recompute)}
    return [*steps, {"op": "summary()", "result": summary, "state": {}}]
