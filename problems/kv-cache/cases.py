"""Cases for kv-cache: mini_llm's Transformer runs with the submitted KVCache.

A case feeds a seeded prompt to a checkpoint from mini_llm.zoo in chunks (a prefill, then
more chunks), then decodes greedily token by token. After every forward pass it records
the logits of the chunk, the greedy next token and what the cache says about itself.
The expected side runs the same trace with reference.py's cache, whose logits match a
full recomputation without any cache (the statement says how closely).
"""

import torch

from judge.run.job_device import job_device, on_cpu
from mini_llm import zoo
from mini_llm.errors import CacheError

# SmolLM2's logits are 49,152 wide: the first SHOWN of every position are compared, and
# the greedy token is taken over the whole vocabulary. The generated models have <= 2048.
SHOWN = 2048
PAD_ID = 0


def _case(name, model, batch, chunks, decode, seed, pad=None):
    args = {"model": model, "batch": batch, "chunks": chunks, "decode": decode, "seed": seed}
    if pad is not None:
        args["pad"] = pad  # left padding per row, in tokens, marked 0 in the attention mask
    return {"name": name, "args": args}


def public_cases():
    return [
        # The chapter's check: prefill 5 tokens, then one token per forward pass.
        _case("qwen3-prefill-5-then-decode", "qwen3-gqa", 1, [5], 8, seed=1),
        _case("qwen3-chunks-5-1-7-3", "qwen3-gqa", 1, [5, 1, 7, 3], 3, seed=2),
        _case("qwen3-batch-3-prefill-6-decode", "qwen3-gqa", 3, [6], 6, seed=3),
        _case("qwen3-batch-2-chunks-4-4-1-3", "qwen3-gqa", 2, [4, 4, 1, 3], 3, seed=4),
        _case("qwen3-left-padded-batch", "qwen3-gqa", 2, [4, 5], 4, seed=5, pad=[3, 0]),
        _case("qwen3-wide-chunks-3-6-2", "qwen3-gqa-wide", 2, [3, 6, 2], 3, seed=6),
        _case("smollm2-prefill-8-then-decode", "smollm2-135m", 1, [8], 4, seed=7),
        _case("smollm2-batch-2-chunks-3-4-1", "smollm2-135m", 2, [3, 4, 1], 2, seed=8),
    ]


def _chunks(rng, total):
    """Split `total` tokens into chunks of 1..8, single tokens among them now and then."""
    chunks = []
    while total:
        size = min(total, 1 if rng.random() < 0.25 else rng.randint(2, 8))
        chunks.append(size)
        total -= size
    return chunks


def generated_cases(rng):
    cases = []
    plan = ["qwen3-gqa"] * 6 + ["qwen3-gqa-wide"] * 2 + ["smollm2-135m"]
    for i, model in enumerate(plan):
        small = model == "qwen3-gqa"
        batch = rng.randint(1, 4) if small else rng.randint(1, 2)
        total = rng.randint(4, 24) if small else rng.randint(3, 10)
        decode = rng.randint(2, 8) if small else rng.randint(1, 3)
        pad = None
        if batch > 1 and rng.random() < 0.3:
            pad = [rng.randint(0, total - 1) for _ in range(batch)]
        seed = rng.randrange(2**31)
        name = f"random-{i}-{model}-b{batch}"
        cases.append(_case(name, model, batch, _chunks(rng, total), decode, seed, pad))
    return cases


def run(sub, args):
    """Prefill the prompt chunk by chunk, then decode greedily; one record per forward pass,
    on the job's device (the records come back on the CPU)."""
    device = job_device().value
    model = zoo.model(args["model"], device=device)
    batch, chunks = args["batch"], args["chunks"]
    gen = torch.Generator().manual_seed(args["seed"])
    prompt = torch.randint(model.cfg.vocab_size, (batch, sum(chunks)), generator=gen)  # (B, P)
    mask = torch.ones(batch, sum(chunks) + args["decode"], dtype=torch.long)  # (B, P + decode)
    for row, pad in enumerate(args.get("pad") or []):
        prompt[row, :pad] = PAD_ID
        mask[row, :pad] = 0
    prompt, mask = prompt.to(device), mask.to(device)  # drawn on the CPU: the same anywhere
    cache = sub.KVCache(model.cfg.num_hidden_layers)
    checked = _Checked(cache)
    steps, done = [], 0
    with torch.no_grad():
        for op, size in _passes(chunks, args["decode"]):
            if done < prompt.shape[1]:
                ids = prompt[:, done : done + size]  # (B, T)
            else:
                ids = torch.tensor(steps[-1]["result"]["token"], device=device)[:, None]  # (B, 1)
            done += size
            try:
                logits = model(ids, checked, mask[:, :done] if "pad" in args else None)
            except (Unusable, CacheError) as exc:  # the model cannot use what the cache said
                steps.append({"op": op, "result": str(exc), "state": _state(cache, batch)})
                break
            steps.append(_record(op, logits, cache, batch))  # logits (B, T, V)
    return on_cpu(steps)


def _passes(chunks, decode):
    """(op, new tokens) of every forward pass: the prefill, the other chunks, the decodes."""
    passes, done = [], 0
    for size in chunks:
        passes.append((f"chunk {size} after {done}" if done else f"prefill {size}", size))
        done += size
    return passes + [(f"decode after {done + i}", 1) for i in range(decode)]


class Unusable(Exception):
    """The submitted cache answered the model something it cannot use."""


class _Checked:
    """What the model calls: the submitted cache, its answers checked against the contract
    before the model uses them, so that a wrong shape fails at its step, with a message."""

    def __init__(self, cache):
        self.cache = cache
        self.past = 0

    def past_lengths(self, batch):
        past = self.cache.past_lengths(batch)
        if type(past) is not list or len(past) != batch or any(type(n) is not int for n in past):
            raise Unusable(
                f"past_lengths({batch}) returned {_short(past)}: the model needs a list of "
                f"{batch} ints, one per sequence"
            )
        self.past = max(past)
        return past

    def update(self, layer, k, v):
        answer = self.cache.update(layer, k, v)
        if not (isinstance(answer, tuple | list) and len(answer) == 2):
            raise Unusable(f"update(layer={layer}) returned {_short(answer)}, not (keys, values)")
        needed = [*k.shape[:2], self.past + k.shape[2], k.shape[3]]
        for name, t in zip(("keys", "values"), answer, strict=True):
            if not isinstance(t, torch.Tensor) or t.dtype != k.dtype:
                raise Unusable(f"update(layer={layer}) returned {name} that are not float32")
            if list(t.shape) != needed:
                raise Unusable(
                    f"update(layer={layer}) returned {name} of shape {list(t.shape)}; "
                    f"past_lengths said {self.past} tokens were cached, so with {k.shape[2]} "
                    f"new ones the model needs {needed} (batch, KV heads, tokens, head_dim)"
                )
        return answer


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _record(op, logits, cache, batch):
    token = logits[:, -1].argmax(-1).tolist()  # the greedy next token of every sequence
    result = {"logits": logits[..., :SHOWN].contiguous(), "token": token}
    return {"op": op, "result": result, "state": _state(cache, batch)}


def _state(cache, batch):
    return {
        "length": cache.length,
        "past_lengths": _plain(cache.past_lengths(batch)),
        "k_shapes": [_shape(t) for t in cache.k],
        "v_shapes": [_shape(t) for t in cache.v],
    }


def _plain(value):
    return list(value) if isinstance(value, (list, tuple)) else value


def _shape(t):
    return list(t.shape) if isinstance(t, torch.Tensor) else f"not a tensor: {type(t).__name__}"
