"""Cases for decode-throughput: two checks, a warm-up, then nine timed repetitions.

Every repetition is a fresh batch of prompts drawn from the seed (secret on the server),
checked token for token like any case; the judge times each one from its own side (the
time from sending the case to receiving the answer) and scores the median rate. A
repetition declares the bytes it must at least read: each of its decode steps reads
every weight once, and no weight fits in less than a byte.

Every batch is drawn without near ties: decoded greedily, each row's two best logits differ
by at least MIN_GAP at every step, so any correct way of computing them (one batch or one
row at a time, packed weights, another order of summation: they move logits by ~1.3e-5
here) gives exactly the reference's tokens. A row with a near tie is drawn again. Every
submission meets batches of its own seed, so without this a right, fast solution would now
and then be WA by a last bit.
"""

import torch

from judge.run.job_device import job_device
from mini_llm import zoo

MODEL = "qwen3-gqa-wide"
BATCH = 8
# 16, not 32: each timed repetition is paired with a run of the reference just before it
# (judge/run/pacer.py), so a repetition costs twice its own time; 16 keeps a Submit near
# 15 s on this 2-core machine and each timed side still near a second, far above the clock's jitter.
NEW_TOKENS = 16
REPETITIONS = 9
WEIGHTS = 24_125_440  # parameters of qwen3-gqa-wide (mini_llm.zoo)
MIN_GAP = 2e-4  # logits: 15x what batching or packing changed them by (docs/BENCHMARKS.md)
ATTEMPTS = 30  # rounds of drawing rows again before the case generator gives up


# Every repetition's batch has these prompt lengths, in a fresh order with fresh tokens: the
# same work each time, so the spread of the rates is the machine's, not the inputs'.
LENGTHS = (8, 10, 12, 14, 18, 20, 22, 24)


def _prompts(rng, vocab=2048):
    """A batch of the fixed lengths in a fresh order, every row free of near ties."""
    lengths = list(LENGTHS)
    rng.shuffle(lengths)
    prompts = [[] for _ in lengths]
    pending = list(range(len(lengths)))
    for _ in range(ATTEMPTS):
        for row in pending:
            prompts[row] = [rng.randrange(vocab) for _ in range(lengths[row])]
        gaps = smallest_gaps(zoo.model(MODEL), prompts, NEW_TOKENS)
        pending = [row for row, gap in enumerate(gaps) if gap < MIN_GAP]
        if not pending:
            return prompts
    raise RuntimeError(f"rows of {lengths} tokens kept a near tie after {ATTEMPTS} draws")


@torch.inference_mode()
def smallest_gaps(model, prompts, new_tokens):
    """Each row's smallest gap between its two best logits over a greedy decode of the batch
    (left-padded, masked, as the reference decodes it). Only building the cases calls it."""
    from mini_llm import KVCache

    batch, width = len(prompts), max(len(p) for p in prompts)
    ids = torch.zeros(batch, width, dtype=torch.long)  # (B, L)
    mask = torch.zeros(batch, width, dtype=torch.long)  # (B, L)
    for b, prompt in enumerate(prompts):
        ids[b, width - len(prompt) :] = torch.tensor(prompt)
        mask[b, width - len(prompt) :] = 1
    cache = KVCache(model.cfg.num_hidden_layers, max_len=width + new_tokens)
    logits = model(ids, cache, mask, last_only=True)[:, -1]  # (B, V)
    smallest = torch.full((batch,), float("inf"))
    for step in range(new_tokens):
        top = logits.topk(2, dim=-1).values  # (B, 2)
        smallest = torch.minimum(smallest, top[:, 0] - top[:, 1])
        if step == new_tokens - 1:
            break
        mask = torch.cat([mask, mask.new_ones(batch, 1)], dim=1)
        logits = model(logits.argmax(-1)[:, None], cache, mask)[:, -1]
    return smallest.tolist()


def _case(name, prompts, new_tokens, timed=False):
    case = {"name": name, "args": {"prompts": prompts, "max_new_tokens": new_tokens}}
    if timed:
        case["timed"] = {"work": len(prompts) * new_tokens, "min_bytes": new_tokens * WEIGHTS}
    return case


def public_cases():
    return [
        _case("two-rows", [[5, 6, 7], [100, 200, 300, 400, 500, 600]], 5),
        _case("lengths-1-to-8", [list(range(10, 10 + n)) for n in range(1, 9)], 6),
    ]


def generated_cases(rng):
    cases = [_case("warm-up", _prompts(rng), NEW_TOKENS) | {"warm_up": True}]  # not timed
    for i in range(REPETITIONS):
        cases.append(_case(f"timed-{i}", _prompts(rng), NEW_TOKENS, timed=True))
    return cases


def run(sub, args):
    model = zoo.model(MODEL, device=job_device().value)
    with torch.inference_mode():
        rows = sub.decode_batch(model, [list(p) for p in args["prompts"]], args["max_new_tokens"])
    return [[int(t) for t in row] for row in rows]
