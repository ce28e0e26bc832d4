"""Cases for prefix-cache: request traces with shared prefixes, every step compared.

An operation is ["allocate", req_id, tokens, extra], ["append", req_id, tokens],
["free", req_id] or ["reset"]. `run` applies them one by one and records, per step,
the operation, its return value and the observable state of the cache.
"""

import random

_BLOCK_SIZES = (1, 2, 3, 4, 8, 16)
_EXTRAS = (None, None, None, "lora-a", "salt-7")


def _allocate(req: int, tokens: list[int], extra: str | None = None) -> list:
    return ["allocate", req, tokens, extra]


def _append(req: int, tokens: list[int]) -> list:
    return ["append", req, tokens]


def _free(req: int) -> list:
    return ["free", req]


def _case(name: str, num_blocks: int, block_size: int, ops: list[list]) -> dict:
    return {"name": name, "args": {"num_blocks": num_blocks, "block_size": block_size, "ops": ops}}


def public_cases() -> list[dict]:
    p8 = [1, 2, 3, 4, 5, 6, 7, 8]
    return [
        _case(
            "reuse-and-never-the-whole-prompt",
            8,
            4,
            [
                _allocate(0, [*p8, 9, 10]),
                _allocate(1, [*p8, 20, 21, 22]),
                _free(0),
                _free(1),
                _allocate(2, p8),
                _append(2, [9, 10, 11, 12]),
            ],
        ),
        _case(
            "extra-key-separates",
            8,
            2,
            [
                _allocate(0, [5, 6, 7], "lora-a"),
                _allocate(1, [5, 6, 7]),
                _allocate(2, [5, 6, 7], "lora-a"),
            ],
        ),
        _case(
            "lru-eviction",
            4,
            2,
            [
                _allocate(0, [1, 2, 3, 4]),
                _free(0),
                _allocate(1, [5, 6, 7, 8, 9]),
                _free(1),
                _allocate(2, [1, 2, 3, 4, 5]),
            ],
        ),
        _case(
            "hit-blocks-are-not-evicted",
            3,
            2,
            [
                _allocate(0, [1, 2]),
                _allocate(1, [5, 6, 7]),
                _free(0),
                _free(1),
                _allocate(2, [1, 2, 3, 4, 5]),
                _allocate(3, [1, 2, 3, 4, 5, 6, 7]),
                ["reset"],
                _free(2),
                _allocate(4, [1, 2, 3, 4, 5, 6, 7]),
                ["reset"],
                _allocate(5, [1, 2, 3]),
            ],
        ),
    ]


class _TraceWriter:
    """Writes a random trace whose prompts share prefixes, so hits, the hit cap, eviction
    and refused resets all happen. Tracks the requests it believes live (an allocation
    may still fail; later operations on such a request are then defined no-ops)."""

    def __init__(self, rng: random.Random, block_size: int) -> None:
        self.rng = rng
        self.bs = block_size
        self.vocab = rng.choice((3, 20, 1000))  # a small vocabulary makes chance matches
        self.prefixes = [self.tokens(rng.randint(1, 4 * block_size)) for _ in range(3)]
        self.live: dict[int, tuple[list[int], str | None]] = {}
        self.history: list[tuple[list[int], str | None]] = []
        self.next_id = 0
        self.ops: list[list] = []

    def tokens(self, n: int) -> list[int]:
        return [self.rng.randrange(self.vocab) for _ in range(n)]

    def step(self) -> None:
        rng, live = self.rng, self.live
        roll = rng.random()
        if not live or roll < 0.30:
            self.allocate()
        elif roll < 0.30 + 0.04 * len(live):
            req = rng.choice(list(live))
            del live[req]
            self.ops.append(_free(req))
        elif roll < 0.95:
            self.append(rng.choice(list(live)))
        elif roll < 0.97:
            self.revisit()
        else:
            if rng.random() < 0.6:  # drain first, so that the reset is allowed
                self.drain()
            self.ops.append(["reset"])

    def drain(self) -> list[tuple[list[int], str | None]]:
        freed = list(self.live.values())
        for req in list(self.live):
            del self.live[req]
            self.ops.append(_free(req))
        return freed

    def revisit(self) -> None:
        """Free everything, then extend the first freed prompt: under memory pressure its
        cached blocks now sit near the head of the queue, right where the new blocks of
        the hitting request are taken from."""
        first, extra = self.drain()[0]
        prompt = first + self.tokens(self.rng.randint(self.bs, 3 * self.bs))
        self.add(prompt, extra)

    def allocate(self) -> None:
        rng = self.rng
        roll = rng.random()
        extra = rng.choice(_EXTRAS)
        if roll < 0.35:
            prompt = rng.choice(self.prefixes) + self.tokens(rng.randint(0, 2 * self.bs))
        elif roll < 0.75 and self.history:
            source, source_extra = rng.choice(self.history)
            cut = rng.randint(1, len(source)) if rng.random() < 0.6 else len(source)
            prompt = source[:cut] + self.tokens(rng.randint(0, self.bs))
            extra = source_extra if rng.random() < 0.8 else extra
        else:
            prompt = self.tokens(rng.randint(1, 4 * self.bs))
        self.add(prompt or self.tokens(1), extra)

    def add(self, prompt: list[int], extra: str | None) -> None:
        req = self.next_id
        self.next_id += 1
        self.live[req] = (prompt, extra)
        self.history.append((prompt, extra))
        self.ops.append(_allocate(req, prompt, extra))

    def append(self, req: int) -> None:
        n = self.rng.randint(1, 2) if self.rng.random() < 0.9 else self.rng.randint(1, self.bs)
        new = self.tokens(n)
        prompt, extra = self.live[req]
        self.live[req] = (prompt + new, extra)
        self.history.append(self.live[req])
        self.ops.append(_append(req, new))


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        writer = _TraceWriter(rng, block_size)
        for _ in range(rng.randint(150, 300)):
            writer.step()
        cases.append(_case(f"random-{i:02d}", rng.randint(6, 24), block_size, writer.ops))
    return cases


def _call(cache, op: list) -> tuple[str, object]:
    """Apply one operation; return its label and its result."""
    kind = op[0]
    if kind == "allocate":
        label = f"allocate(req_id={op[1]}, tokens={op[2]}, extra={op[3]!r})"
        return label, cache.allocate(op[1], list(op[2]), op[3])
    if kind == "append":
        return f"append(req_id={op[1]}, tokens={op[2]})", cache.append(op[1], list(op[2]))
    if kind == "free":
        return f"free(req_id={op[1]})", list(cache.free(op[1]))
    return "reset()", cache.reset()


def run(sub, args: dict) -> list[dict]:
    cache = sub.PrefixCache(args["num_blocks"], args["block_size"])
    steps = []
    for op in args["ops"]:
        label, result = _call(cache, op)
        # Copies, not references: a later step must not rewrite an earlier observation.
        state = {
            "block_table": list(cache.block_table(op[1])) if op[0] != "reset" else [],
            "ref_counts": [cache.ref_count(b) for b in range(args["num_blocks"])],
            "free_blocks": list(cache.free_blocks()),
            "cached_blocks": list(cache.cached_blocks()),
        }
        steps.append({"op": label, "result": result, "state": state})
    return steps
