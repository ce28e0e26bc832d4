"""Cases for kv-offload: request traces with shared prefixes over a GPU and a CPU tier.

An operation is ["start", req_id, tokens] or ["finish", req_id]. `run` applies them one by
one and records, per step, the operation, its return value and both tiers' state.
"""

import hashlib
import json
import random

_BLOCK_SIZES = (1, 2, 3, 4, 8, 16)
# KV bytes per token over all layers (2 x layers x kv_heads x head_dim x 2 bytes, BF16):
# Qwen3-0.6B (28 layers, 8 KV heads of 128) and LLaMA-3-8B (32 layers, 8 KV heads of 128).
_BYTES_PER_TOKEN = (114_688, 131_072)


def _start(req: int, tokens: list[int]) -> list:
    return ["start", req, tokens]


def _finish(req: int) -> list:
    return ["finish", req]


def _case(name: str, gpu: int, cpu: int, block_size: int, block_bytes: int, ops: list) -> dict:
    args = {
        "gpu_blocks": gpu,
        "cpu_blocks": cpu,
        "block_size": block_size,
        "block_bytes": block_bytes,
        "ops": ops,
    }
    return {"name": name, "args": args}


def _span(first: int, last: int) -> list[int]:
    return list(range(first, last + 1))


def public_cases() -> list[dict]:
    return [
        # The statement's worked example: Qwen3-0.6B, 4-token blocks of 4 x 114,688 bytes.
        _case(
            "offload-then-load",
            4,
            4,
            4,
            458_752,
            [
                _start(0, _span(1, 10)),
                _finish(0),
                _start(1, _span(21, 33)),
                _finish(1),
                _start(2, [*_span(1, 8), 11, 12, 13]),
                _finish(2),
                _start(3, [*_span(1, 8), 14]),
            ],
        ),
        _case(
            "in-use-blocks-stay-on-gpu",
            4,
            4,
            2,
            100,
            [
                _start(0, [1, 2, 3, 4, 5]),
                _start(1, [1, 2, 3, 4, 6]),
                _start(2, [7, 8]),
                _finish(0),
                _start(3, [7, 8]),
                _start(4, [9, 10, 11]),
                _finish(1),
                _start(5, [9, 10, 11]),
                _start(6, _span(30, 39)),
                _finish(9),
                _finish(2),
            ],
        ),
        _case(
            "cpu-tier-drops-its-lru",
            3,
            2,
            2,
            1000,
            [
                _start(0, [1, 2, 3]),
                _finish(0),
                _start(1, [4, 5, 6]),
                _finish(1),
                _start(2, [7, 8, 9]),
                _finish(2),
                _start(3, [10, 11, 12]),
                _finish(3),
                _start(4, [13, 14, 15]),
                _finish(4),
                _start(5, [7, 8, 20]),
                _finish(5),
                _start(6, [4, 5, 21]),
            ],
        ),
        _case(
            "no-cpu-tier",
            2,
            0,
            2,
            64,
            [
                _start(0, [1, 2, 3]),
                _finish(0),
                _start(1, [5, 6, 7]),
                _finish(1),
                _start(2, [1, 2, 3]),
            ],
        ),
        _case(
            "hit-cap-and-duplicates",
            6,
            4,
            2,
            10,
            [
                _start(0, [1, 2, 3, 4]),
                _start(1, [1, 2, 3, 4]),
                _finish(0),
                _finish(1),
                _start(2, _span(5, 14)),
                _finish(2),
                _start(3, [1, 2, 3, 4]),
                _start(4, [1, 2, 3, 4, 5]),
                _finish(3),
                _finish(4),
                _finish(3),
            ],
        ),
    ]


class _TraceWriter:
    """Writes a random trace of requests that share system prompts and continue earlier
    conversations, on tiers small enough that offloads, loads, drops and refused starts
    happen often. Tracks the requests it believes live (a start may still fail; finishing
    such a request is then a defined no-op)."""

    def __init__(self, rng: random.Random, block_size: int, max_blocks: int) -> None:
        self.rng = rng
        self.bs = block_size
        self.cap = max_blocks * block_size  # longest prompt, so that most starts can fit
        self.vocab = rng.choice((3, 50, 1000))  # a small vocabulary makes chance matches
        self.prefixes = [self.tokens(rng.randint(1, self.cap - 1)) for _ in range(3)]
        self.live: list[int] = []
        self.history: list[list[int]] = []
        self.next_id = 0
        self.ops: list[list] = []

    def tokens(self, n: int) -> list[int]:
        return [self.rng.randrange(self.vocab) for _ in range(n)]

    def step(self) -> None:
        rng = self.rng
        roll = rng.random()
        if not self.live or roll < 0.45:
            self.start()
        elif roll < 0.97:
            if rng.random() < 0.05:  # an id that was refused, never started or finished
                gone = [i for i in range(self.next_id + 2) if i not in self.live]
                self.ops.append(_finish(rng.choice(gone)))
            else:
                self.ops.append(_finish(self.live.pop(rng.randrange(len(self.live)))))
        else:
            self.come_back()

    def come_back(self) -> None:
        """Finish everything, then continue one of the oldest conversations: its blocks
        have had time to travel to the CPU tier, to its LRU end, or out of it."""
        while self.live:
            self.ops.append(_finish(self.live.pop(0)))
        source = self.rng.choice(self.history[:3])
        self.add(source + self.tokens(self.rng.randint(1, 2 * self.bs)))

    def start(self) -> None:
        rng, bs = self.rng, self.bs
        roll = rng.random()
        if roll < 0.35 or not self.history:
            prompt = rng.choice(self.prefixes) + self.tokens(rng.randint(0, 2 * bs))
        elif roll < 0.75:  # the next turn of an earlier conversation
            source = rng.choice(self.history)
            prompt = source + self.tokens(rng.randint(1, 2 * bs))
        elif roll < 0.85:  # the same prompt again: if block-aligned, the hit cap recomputes
            # its last block, which is then a private copy of a cached one
            prompt = list(rng.choice(self.history))
        else:
            prompt = self.tokens(rng.randint(1, 4 * bs))
        self.add(prompt or self.tokens(1))

    def add(self, prompt: list[int]) -> None:
        prompt = prompt[: self.cap]  # a conversation that grew too long keeps its beginning
        self.live.append(self.next_id)
        self.history.append(prompt)
        self.ops.append(_start(self.next_id, prompt))
        self.next_id += 1


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(16):
        block_size = _BLOCK_SIZES[i % len(_BLOCK_SIZES)]
        # Small tiers keep eviction frequent (and every step's recorded state short).
        gpu = rng.randint(4, 16)
        writer = _TraceWriter(rng, block_size, max(2, gpu // 2))
        for _ in range(rng.randint(150, 250)):
            writer.step()
        cpu = 0 if i % 8 == 7 else rng.randint(2, 16)
        block_bytes = block_size * rng.choice(_BYTES_PER_TOKEN)
        cases.append(_case(f"random-{i:02d}", gpu, cpu, block_size, block_bytes, writer.ops))
    return cases


def _block_hash(parent: int | None, tokens: list[int]) -> int:
    """The statement's block_hash, kept here so that naming never trusts the submission."""
    data = json.dumps([parent, tokens], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def _block_names(args: dict) -> dict[int, str]:
    """Names every full block of the trace's prompts "R.I": block I of request R, the first
    request whose prompt holds that block. The record is read by people, and 64-bit hashes
    would also make it five times as long."""
    names: dict[int, str] = {}
    bs = args["block_size"]
    for op in args["ops"]:
        if op[0] != "start":
            continue
        parent = None
        for i in range(len(op[2]) // bs):
            parent = _block_hash(parent, op[2][i * bs : (i + 1) * bs])
            names.setdefault(parent, f"{op[1]}.{i}")
    return names


def _copy(value: object) -> object:
    """A copy of a returned dict (or the value itself), so later steps cannot rewrite it."""
    return dict(value) if isinstance(value, dict) else value


def run(sub, args: dict) -> list[dict]:
    cache = sub.TieredCache(
        args["gpu_blocks"], args["cpu_blocks"], args["block_size"], args["block_bytes"]
    )
    names = _block_names(args)

    def name(h: object) -> object:
        # Anything that is not the hash of a block of this trace stays as it is (and differs).
        return names.get(h, h) if isinstance(h, int) and not isinstance(h, bool) else h

    def pair(p: object) -> object:
        return [name(p[0]), *p[1:]] if isinstance(p, (list, tuple)) and p else p

    steps = []
    for op in args["ops"]:
        if op[0] == "start":
            label = f"start(req_id={op[1]}, tokens={op[2]})"
            result = _copy(cache.start(op[1], list(op[2])))
        else:
            label = f"finish(req_id={op[1]})"
            result = cache.finish(op[1])
        # New lists, not the submission's: a later step must not rewrite an earlier one.
        state = {
            "gpu_lru": [name(h) for h in cache.gpu_lru()],
            "gpu_in_use": [pair(p) for p in cache.gpu_in_use()],
            "gpu_private": cache.gpu_private(),
            "cpu_lru": [name(h) for h in cache.cpu_lru()],
        }
        steps.append({"op": label, "result": result, "state": state})
    return steps
