"""Cases for greedy-generate: token-exact continuations, and long ones with a CPU-time rule.

Prompts are token ids drawn from the seed; stop tokens are taken from the reference's own
continuation (computed here, in the trusted parent, when the cases are built), so a stop
really happens where a case says it does. Long cases are `calibrated`: the judge runs
the reference on them in a child of its own first, and a submission may use at most
2.5 x that CPU time + 0.25 s (problem.toml), counted by the kernel from outside; on a CUDA
job, 2.5 x the reference's wall time on the same device + 0.25 s, timed by the judge.

Every case avoids near ties: over its greedy continuation, the two best logits differ by at
least MIN_GAP at every step, so the tokens cannot depend on the last bits of the arithmetic.
A drawn prompt with a near tie is drawn again. The expected tokens are computed on the CPU;
a CUDA job computes the same logits in another order of summation (fp32, TF32 off: about
1e-5 apart here, bounded by 1e-3 in tests/mini_llm/test_cuda_device.py), which MIN_GAP
exceeds, so a right solution gets exactly the reference's tokens on either device.
"""

import math

import torch

from judge.run.job_device import job_device
from mini_llm import zoo

SMOLLM2_PROMPT = [504, 3575, 282, 4649, 314]  # "The capital of France is"
LONG_PROMPT = 24  # tokens in the prompt of every calibrated case
MIN_GAP = 1e-3  # logits; CPU vs CUDA fp32 moves them by ~1e-5 (see above)
ATTEMPTS = 50  # draws of one prompt before the case generator gives up


@torch.inference_mode()
def greedy_run(model_name, prompt, n):
    """The reference's greedy continuation of `prompt` (n tokens, no stop token) and the
    smallest gap between the two best logits over its steps (inf when n is 0). Only
    building the cases (the trusted side, on the CPU) calls it."""
    from mini_llm import KVCache

    model = zoo.model(model_name)
    tokens, gap = [], math.inf
    if n == 0:
        return tokens, gap
    cache = KVCache(model.cfg.num_hidden_layers, max_len=len(prompt) + n)
    logits = model(torch.tensor([prompt]), cache, last_only=True)[0, -1]  # (V,)
    while True:
        top = logits.topk(2)
        gap = min(gap, float(top.values[0] - top.values[1]))
        tokens.append(int(top.indices[0]))
        if len(tokens) == n:
            return tokens, gap
        logits = model(torch.tensor([[tokens[-1]]]), cache)[0, -1]  # (V,)


def clear_prompt(rng, model_name, length, n, vocab):
    """A prompt of `length` tokens below `vocab` whose greedy run of n tokens has no near tie,
    and that run; drawn again (same length) until it has none."""
    for _ in range(ATTEMPTS):
        prompt = [rng.randrange(vocab) for _ in range(length)]
        tokens, gap = greedy_run(model_name, prompt, n)
        if gap >= MIN_GAP:
            return prompt, tokens
    raise RuntimeError(f"prompts of {length} tokens kept a near tie after {ATTEMPTS} draws")


def _case(name, model, prompt, max_new, stop=(), calibrated=False):
    case = {
        "name": name,
        "args": {"model": model, "prompt": prompt, "max_new_tokens": max_new, "stop": list(stop)},
    }
    if calibrated:
        case["calibrated"] = True
    return case


def _stop_at(tokens, k):
    """A stop token that first appears at position k of the reference continuation."""
    return [tokens[k]] if tokens[k] not in tokens[:k] else []


def _public_stop(model, prompt, k, n):
    return _stop_at(greedy_run(model, prompt, n)[0], k)


def public_cases():
    short = [3, 17, 256, 9, 41]
    prompt12 = [5, 900, 14, 77, 300, 2, 618, 45, 1000, 8, 123, 64]
    return [
        _case("qwen3-short", "qwen3-gqa", short, 8),
        _case("one-token-prompt", "qwen3-gqa", [7], 6),
        _case("zero-new-tokens", "qwen3-gqa", short, 0),
        _case("one-new-token", "qwen3-gqa", prompt12, 1),
        _case(
            "stops-at-step-4", "qwen3-gqa", prompt12, 12, _public_stop("qwen3-gqa", prompt12, 3, 12)
        ),
        _case("stops-at-once", "qwen3-gqa", short, 5, _public_stop("qwen3-gqa", short, 0, 5)),
        _case("smollm2-paris", "smollm2-135m", SMOLLM2_PROMPT, 6),
        _case(
            "long-160", "qwen3-gqa-wide", list(range(100, 100 + LONG_PROMPT)), 160, calibrated=True
        ),
    ]


def generated_cases(rng):
    cases = []
    for i in range(4):
        length, n = rng.randint(1, 30), rng.randint(2, 16)
        k = rng.randrange(n)
        prompt, tokens = clear_prompt(rng, "qwen3-gqa", length, n, vocab=1024)
        stop = _stop_at(tokens, k) if i % 2 else []
        cases.append(_case(f"random-{i}", "qwen3-gqa", prompt, n, stop))
    # One hidden long case: its secret prompt is what stops a solution fitted to the public
    # long-160 (a second cost a Submit about 2 s on an idle AMD EPYC, and found nothing the
    # first does not).
    for i in range(1):
        # A calibrated case has one shape on every seed (only its tokens are drawn): the
        # judge measures the reference once per case name, not once per submission.
        prompt, _ = clear_prompt(rng, "qwen3-gqa-wide", LONG_PROMPT, 180, vocab=2048)
        cases.append(_case(f"long-{i}", "qwen3-gqa-wide", prompt, 180, calibrated=True))
    return cases


def run(sub, args):
    model = zoo.model(args["model"], device=job_device().value)
    with torch.inference_mode():
        tokens = sub.generate(
            model, list(args["prompt"]), args["max_new_tokens"], set(args["stop"])
        )
    return [int(t) for t in tokens]
