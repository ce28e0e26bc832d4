"""Cases for greedy-generate: token-exact continuations, and long ones with a CPU-time rule.

Prompts are token ids drawn from the seed; stop tokens are taken from the reference's own
continuation (computed here, in the trusted parent, when the cases are built), so a stop
really happens where a case says it does. Long cases are `calibrated`: the judge runs
the reference on them in a child of its own first, and a submission may use at most
2.5 x that CPU time + 0.25 s (problem.toml), counted by the kernel from outside.
"""

import torch

from mini_llm import zoo

SMOLLM2_PROMPT = [504, 3575, 282, 4649, 314]  # "The capital of France is"
LONG_PROMPT = 24  # tokens in the prompt of every calibrated case


def _continuation(model_name, prompt, n):
    # Imported here: generate is what this problem withholds from the submission's process,
    # where this file is the driver; only building the cases (the trusted side) needs it.
    from mini_llm import generate

    return generate(zoo.model(model_name), [prompt], n, stop_tokens=())[0]


def _case(name, model, prompt, max_new, stop=(), calibrated=False):
    case = {
        "name": name,
        "args": {"model": model, "prompt": prompt, "max_new_tokens": max_new, "stop": list(stop)},
    }
    if calibrated:
        case["calibrated"] = True
    return case


def _stop_at(model, prompt, k, n):
    """A stop token that first appears at position k of the reference continuation."""
    tokens = _continuation(model, prompt, n)
    return [tokens[k]] if tokens[k] not in tokens[:k] else []


def public_cases():
    short = [3, 17, 256, 9, 41]
    prompt12 = [5, 900, 14, 77, 300, 2, 618, 45, 1000, 8, 123, 64]
    return [
        _case("qwen3-short", "qwen3-gqa", short, 8),
        _case("one-token-prompt", "qwen3-gqa", [7], 6),
        _case("zero-new-tokens", "qwen3-gqa", short, 0),
        _case("one-new-token", "qwen3-gqa", prompt12, 1),
        _case("stops-at-step-4", "qwen3-gqa", prompt12, 12, _stop_at("qwen3-gqa", prompt12, 3, 12)),
        _case("stops-at-once", "qwen3-gqa", short, 5, _stop_at("qwen3-gqa", short, 0, 5)),
        _case("smollm2-paris", "smollm2-135m", SMOLLM2_PROMPT, 6),
        _case(
            "long-160", "qwen3-gqa-wide", list(range(100, 100 + LONG_PROMPT)), 160, calibrated=True
        ),
    ]


def generated_cases(rng):
    cases = []
    for i in range(4):
        prompt = [rng.randrange(1024) for _ in range(rng.randint(1, 30))]
        n = rng.randint(2, 16)
        k = rng.randrange(n)
        stop = _stop_at("qwen3-gqa", prompt, k, n) if i % 2 else []
        cases.append(_case(f"random-{i}", "qwen3-gqa", prompt, n, stop))
    for i in range(2):
        # A calibrated case has one shape on every seed (only its tokens are drawn): the
        # judge measures the reference once per case name, not once per submission.
        prompt = [rng.randrange(2048) for _ in range(LONG_PROMPT)]
        cases.append(_case(f"long-{i}", "qwen3-gqa-wide", prompt, 180, calibrated=True))
    return cases


def run(sub, args):
    model = zoo.model(args["model"])
    with torch.inference_mode():
        tokens = sub.generate(
            model, list(args["prompt"]), args["max_new_tokens"], set(args["stop"])
        )
    return [int(t) for t in tokens]
