"""Cases for fragmentation: hand-made traces that show each effect, then seeded traces."""

import random


def _arrive(rid: int, prompt: int, max_len: int) -> dict:
    return {"op": "arrive", "id": rid, "prompt": prompt, "max_len": max_len}


def _grow(rid: int, tokens: int) -> dict:
    return {"op": "grow", "id": rid, "tokens": tokens}


def _finish(rid: int) -> dict:
    return {"op": "finish", "id": rid}


def _case(name: str, pool_tokens: int, block_size: int, events: list) -> dict:
    args = {"pool_tokens": pool_tokens, "block_size": block_size, "events": events}
    return {"name": name, "args": args}


def public_cases() -> list[dict]:
    return [
        # The statement's example: a short answer inside a long reservation.
        _case(
            "internal-waste",
            256,
            16,
            [_arrive(1, 20, 128), _grow(1, 12), _arrive(2, 100, 128), _finish(1)],
        ),
        # Two 64-token holes that are not adjacent cannot take a 96-token reservation.
        _case(
            "external-waste",
            256,
            16,
            [
                _arrive(1, 10, 64),
                _arrive(2, 10, 64),
                _arrive(3, 10, 64),
                _arrive(4, 10, 64),
                _finish(1),
                _finish(3),
                _arrive(5, 30, 96),
                _finish(2),
                _arrive(6, 30, 96),
            ],
        ),
        # Paging runs out of blocks mid-generation and preempts the request that grows.
        _case(
            "paged-eviction",
            64,
            16,
            [
                _arrive(1, 30, 64),
                _arrive(2, 20, 40),
                _grow(1, 20),
                _grow(2, 5),
                _grow(1, 1),
                _finish(1),
                _grow(2, 1),
                _finish(2),
            ],
        ),
        _case("busy-server", 4096, 16, _trace(random.Random(2026), 4096, 16, 120)),
    ]


def _new_request(rng: random.Random, pool_tokens: int, block_size: int) -> tuple[int, int]:
    """A (prompt, max_len) pair: max_len is often a round engine limit, sometimes odd."""
    cap = max(block_size, pool_tokens // 3)
    max_len = rng.choice([cap, cap // 2, cap // 4, rng.randint(block_size, cap)])
    max_len = max(2, max_len)
    return rng.randint(1, max_len - 1), max_len


def _trace(rng: random.Random, pool_tokens: int, block_size: int, steps: int) -> list:
    """Events that respect the statement's promises: unique ids, grow and finish only for
    requests that arrived and did not finish, and no request past its max_len."""
    events, live, next_id = [], {}, 1  # live: id -> [length, max_len]
    for _ in range(steps):
        roll = rng.random()
        growable = [rid for rid, (length, cap) in live.items() if length < cap]
        if not live or roll < 0.3:
            prompt, max_len = _new_request(rng, pool_tokens, block_size)
            events.append(_arrive(next_id, prompt, max_len))
            live[next_id] = [prompt, max_len]
            next_id += 1
        elif growable and roll < 0.8:
            rid = rng.choice(growable)
            length, cap = live[rid]
            tokens = rng.choice([1, 1, block_size, rng.randint(1, cap - length)])
            tokens = min(tokens, cap - length)
            events.append(_grow(rid, tokens))
            live[rid][0] += tokens
        else:
            rid = rng.choice(sorted(live))
            events.append(_finish(rid))
            del live[rid]
    return events


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(20):
        block_size = rng.choice([1, 4, 8, 16, 16, 32])
        pool_tokens = block_size * rng.randint(16, 1024)
        steps = rng.randint(100, 400)
        events = _trace(rng, pool_tokens, block_size, steps)
        cases.append(_case(f"gen-{i:02d}", pool_tokens, block_size, events))
    return cases


def _describe(event: dict) -> str:
    """The label the checker shows for the first step that differs."""
    if event["op"] == "arrive":
        return f"arrive id={event['id']} prompt={event['prompt']} max_len={event['max_len']}"
    if event["op"] == "grow":
        return f"grow id={event['id']} tokens={event['tokens']}"
    return f"finish id={event['id']}"


def run(sub, args):
    events = args["events"]
    copies = [dict(event) for event in events]  # the submission may not alter the labels
    steps = sub.simulate(args["pool_tokens"], args["block_size"], copies)
    if type(steps) is not list:
        return steps  # the checker reports the wrong type
    labelled = []
    for i, step in enumerate(steps):
        if i >= len(events):
            labelled.append(step)  # extra records: the checker reports the length
        elif type(step) is dict and "op" not in step:
            labelled.append({"op": _describe(events[i]), **step})
        else:
            labelled.append({"op": _describe(events[i]), "record": step})
    return labelled
