"""Cases for scheduler: arrival traces run step by step, every step compared.

A case gives the engine limits and requests [req_id, arrival_step, prompt_len, output_len]
sorted by (arrival_step, req_id). `run` adds each request at the start of its arrival
step, calls step() once per step, and records the schedule and the queues after it.
"""

import random

_BLOCK_SIZES = (1, 2, 4, 8, 16)


def _case(name: str, limits: tuple[int, int, int, int], requests: list[list[int]]) -> dict:
    num_blocks, block_size, max_num_seqs, max_num_batched_tokens = limits
    args = {
        "num_blocks": num_blocks,
        "block_size": block_size,
        "max_num_seqs": max_num_seqs,
        "max_num_batched_tokens": max_num_batched_tokens,
        "requests": requests,
    }
    return {"name": name, "args": args}


def public_cases() -> list[dict]:
    return [
        _case("prefill-decode-finish", (8, 4, 4, 16), [[0, 0, 3, 3], [1, 0, 5, 2], [2, 1, 2, 1]]),
        _case("head-of-line-blocking", (16, 4, 4, 8), [[0, 0, 6, 2], [1, 0, 5, 1], [2, 0, 1, 1]]),
        _case("max-num-seqs", (16, 2, 2, 32), [[0, 0, 2, 3], [1, 0, 2, 2], [2, 0, 2, 2]]),
        _case("preemption-by-recompute", (4, 2, 2, 16), [[0, 0, 3, 4], [1, 0, 3, 4], [2, 0, 1, 1]]),
    ]


def _random_requests(rng: random.Random, count: int, max_len: int) -> list[list[int]]:
    """Requests whose longest recompute (prompt + output - 1 tokens) fits the engine alone."""
    requests = []
    arrival = 0
    for req_id in range(count):
        arrival += rng.choice((0, 0, 0, 1, 1, 2, 4))  # bursts and gaps
        prompt = rng.randint(1, max(1, max_len // 2))
        output = rng.randint(1, max_len - prompt + 1)
        requests.append([req_id, arrival, prompt, output])
    return requests


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        num_blocks = rng.randint(4, 24)
        max_num_seqs = rng.randint(2, 8)
        max_tokens = max(max_num_seqs, rng.randint(2 * block_size, 8 * block_size))
        max_len = min(num_blocks * block_size, max_tokens)
        requests = _random_requests(rng, rng.randint(20, 40), max_len)
        limits = (num_blocks, block_size, max_num_seqs, max_tokens)
        cases.append(_case(f"random-{i:02d}", limits, requests))
    return cases


def _step_limit(requests: list[list[int]]) -> int:
    """Every step with work in flight yields a token, so the reference drains in fewer steps;
    a submission that does not is cut off here and differs in length."""
    return max(r[1] for r in requests) + 2 * sum(r[3] for r in requests) + 10


def run(sub, args: dict) -> list[dict]:
    sched = sub.Scheduler(
        args["num_blocks"], args["block_size"], args["max_num_seqs"], args["max_num_batched_tokens"]
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
            "scheduled": [list(pair) for pair in out["scheduled"]],
            "preempted": list(out["preempted"]),
            "finished": list(out["finished"]),
        }
        state = {
            "running": list(sched.running()),
            "waiting": list(sched.waiting()),
            "num_free_blocks": sched.num_free_blocks(),
        }
        label = "".join(f"add_request({r[0]}, {r[2]}, {r[3]}), " for r in arrived) + "step()"
        steps.append({"op": label, "result": result, "state": state})
        if t >= pending[-1][1] and not state["running"] and not state["waiting"]:
            break
    return steps
