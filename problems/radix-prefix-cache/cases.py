"""Cases for radix-prefix-cache: request traces with shared prefixes, every step compared.

An operation is ["allocate", req_id, tokens, extra], ["append", req_id, tokens],
["free", req_id] or ["reset"], the same shape as in prefix-cache, so one trace runs on
both problems. `run` applies them one by one and records, per step, the operation, its
return value and the observable state of the tree.
"""

import random

_EXTRAS = (None, None, None, "lora-a", "salt-7")


def _allocate(req: int, tokens: list[int], extra: str | None = None) -> list:
    return ["allocate", req, tokens, extra]


def _append(req: int, tokens: list[int]) -> list:
    return ["append", req, tokens]


def _free(req: int) -> list:
    return ["free", req]


def _case(name: str, capacity: int, ops: list[list]) -> dict:
    return {"name": name, "args": {"capacity": capacity, "ops": ops}}


def _span(first: int, last: int) -> list[int]:
    return list(range(first, last + 1))


def public_cases() -> list[dict]:
    return [
        # The statement's worked example: a split on a partial match, the L - 1 cap (a
        # second split), a finish that adds nothing, an unknown id.
        _case(
            "split-on-partial-match",
            32,
            [
                _allocate(0, _span(1, 6)),
                _free(0),
                _allocate(1, [1, 2, 3, 9, 9]),
                _free(1),
                _allocate(2, _span(1, 6)),
                _free(2),
                _free(2),
            ],
        ),
        # A finish whose tokens end inside an edge splits it; eviction then takes the
        # lower half first and the chain above it next (each became a leaf in turn),
        # before the newer leaf [7, 8, 9].
        _case(
            "evict-cascades-to-parent",
            8,
            [
                _allocate(0, [1, 2, 3, 4]),
                _free(0),
                _allocate(1, [1, 2, 3]),
                _free(1),
                _allocate(2, [7, 8, 9]),
                _free(2),
                _allocate(3, [10, 11, 12]),
                _free(3),
            ],
        ),
        # The least recently used leaf [1, 2, 3, 4] is locked by a running request, so
        # the newer unlocked chain goes instead, leaf first.
        _case(
            "locked-path-is-not-evicted",
            10,
            [
                _allocate(0, [1, 2, 3, 4]),
                _free(0),
                _allocate(1, [5, 6, 7]),
                _free(1),
                _allocate(2, [1, 2, 3, 4, 8]),
                _allocate(3, [5, 6, 7, 9]),
                _free(3),
                _allocate(4, [20, 21, 22]),
                _free(2),
                _free(4),
            ],
        ),
        # The match is locked and stamped before eviction: the older leaf [1, 2] is the
        # one matched, so [3, 4] is evicted instead.
        _case(
            "matched-path-survives-its-own-eviction",
            6,
            [
                _allocate(0, [1, 2]),
                _free(0),
                _allocate(1, [3, 4]),
                _free(1),
                _allocate(2, [1, 2, 7, 7, 7]),
                _free(2),
            ],
        ),
        # Every refusal is a return value and changes nothing but the clock: an
        # allocation that would have to evict the prefix it matched, appends that do not
        # fit or name no request, a reset while a request runs.
        _case(
            "refusals-change-nothing",
            6,
            [
                _allocate(0, [1, 2, 3, 4]),
                _free(0),
                _allocate(1, [1, 2, 3, 5, 6, 7, 8]),
                _allocate(2, [1, 2, 9]),
                _append(2, [4, 4, 4, 4]),
                _append(7, [1]),
                ["reset"],
                _append(2, [4, 4, 4]),
                _free(1),
                _free(2),
                ["reset"],
                _allocate(3, [1, 2, 3]),
            ],
        ),
        # Extra keys (a LoRA adapter, a cache salt) keep separate trees: equal tokens
        # under another key never match.
        _case(
            "extra-key-separates",
            32,
            [
                _allocate(0, [5, 6, 7], "lora-a"),
                _free(0),
                _allocate(1, [5, 6, 7]),
                _allocate(2, [5, 6, 7, 8], "lora-a"),
                _free(1),
                _free(2),
                _allocate(3, [5, 6, 7, 8, 9]),
            ],
        ),
        # Block-aligned prefixes, requests one after another, no eviction: prefix-cache
        # with block_size=4 and num_blocks=8 returns the same hits (0, 8, 4, 12).
        _case(
            "agrees-with-prefix-cache",
            32,
            [
                _allocate(0, _span(1, 9)),
                _append(0, [10, 11, 12]),
                _free(0),
                _allocate(1, [*_span(1, 8), 20, 21, 22, 23, 24]),
                _free(1),
                _allocate(2, [1, 2, 3, 4, 30, 31]),
                _free(2),
                _allocate(3, [*_span(1, 12), 40]),
                _free(3),
            ],
        ),
        # Where the rules part (see the statement): prefix-cache with block_size=4 and
        # num_blocks=4 returns 0, 4, 4, 0, 4 from these allocations, this problem 0, 0, 6,
        # 0, 6 (running requests are not shared, tokens not blocks, whole-leaf eviction).
        _case(
            "differs-from-prefix-cache",
            16,
            [
                _allocate(0, _span(1, 8)),
                _allocate(1, _span(1, 5)),
                _free(0),
                _free(1),
                _allocate(2, [*_span(1, 6), 50]),
                _free(2),
                _allocate(3, _span(60, 67)),
                _allocate(4, [*_span(1, 6), 70]),
            ],
        ),
    ]


class _TraceWriter:
    """Writes a random trace whose prompts share prefixes of any length, so partial
    matches (splits), the L - 1 cap, duplicates, eviction cascades and refused resets all
    happen. Tracks the requests it believes live (an allocation may still fail; later
    operations on such a request are then defined no-ops)."""

    def __init__(self, rng: random.Random, span: int) -> None:
        self.rng = rng
        self.span = span  # typical length of a piece of prompt
        self.vocab = rng.choice((3, 20, 1000))  # a small vocabulary makes chance matches
        self.prefixes = [self.tokens(rng.randint(1, 3 * span)) for _ in range(3)]
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
        elif roll < 0.30 + 0.10 * len(live):
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
        """Free everything, then extend the first freed sequence: a full-length match
        whose path must be locked before the room for its new tokens is made."""
        first, extra = self.drain()[0]
        self.add(first + self.tokens(self.rng.randint(1, 2 * self.span)), extra)

    def allocate(self) -> None:
        rng = self.rng
        roll = rng.random()
        extra = rng.choice(_EXTRAS)
        if roll < 0.35:
            prompt = rng.choice(self.prefixes) + self.tokens(rng.randint(0, 2 * self.span))
        elif roll < 0.75 and self.history:
            source, source_extra = rng.choice(self.history)
            cut = rng.randint(1, len(source)) if rng.random() < 0.6 else len(source)
            prompt = source[:cut] + self.tokens(rng.randint(0, self.span))
            extra = source_extra if rng.random() < 0.8 else extra
        else:
            prompt = self.tokens(rng.randint(1, 3 * self.span))
        self.add(prompt or self.tokens(1), extra)

    def add(self, prompt: list[int], extra: str | None) -> None:
        req = self.next_id
        self.next_id += 1
        self.live[req] = (prompt, extra)
        self.history.append((prompt, extra))
        self.ops.append(_allocate(req, prompt, extra))

    def append(self, req: int) -> None:
        n = self.rng.randint(1, 2) if self.rng.random() < 0.9 else self.rng.randint(1, self.span)
        new = self.tokens(n)
        prompt, extra = self.live[req]
        self.live[req] = (prompt + new, extra)
        self.history.append(self.live[req])
        self.ops.append(_append(req, new))


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        span = rng.choice((2, 3, 4, 6))
        writer = _TraceWriter(rng, span)
        for _ in range(rng.randint(150, 300)):
            writer.step()
        cases.append(_case(f"random-{i:02d}", rng.randint(10 * span, 20 * span), writer.ops))
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
        return f"free(req_id={op[1]})", cache.free(op[1])
    return "reset()", cache.reset()


def _node(row) -> list:
    extra, prefix, length, lock, last_used = row
    return [extra, list(prefix), length, lock, last_used]


def run(sub, args: dict) -> list[dict]:
    cache = sub.RadixCache(args["capacity"])
    steps = []
    for op in args["ops"]:
        label, result = _call(cache, op)
        # Copies, not references: a later step must not rewrite an earlier observation.
        state = {
            "nodes": [_node(row) for row in cache.nodes()],
            "cached_tokens": cache.cached_tokens(),
            "free_tokens": cache.free_tokens(),
        }
        steps.append({"op": label, "result": result, "state": state})
    return steps
