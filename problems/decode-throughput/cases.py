"""Cases for decode-throughput: two checks, a warm-up, then nine timed repetitions.

Every repetition is a fresh batch of prompts drawn from the seed (secret on the server),
checked token for token like any case; the judge times each one from its own side (the
time from sending the case to receiving the answer) and scores the median rate. A
repetition declares the bytes it must at least read: each of its decode steps reads
every weight once, and no weight fits in less than a byte.
"""

import torch

from mini_llm import zoo

MODEL = "qwen3-gqa-wide"
BATCH = 8
NEW_TOKENS = 32
REPETITIONS = 9
WEIGHTS = 24_125_440  # parameters of qwen3-gqa-wide (mini_llm.zoo)


# Every repetition's batch has these prompt lengths, in a fresh order with fresh tokens: the
# same work each time, so the spread of the rates is the machine's, not the inputs'.
LENGTHS = (8, 10, 12, 14, 18, 20, 22, 24)


def _prompts(rng, vocab=2048):
    lengths = list(LENGTHS)
    rng.shuffle(lengths)
    return [[rng.randrange(vocab) for _ in range(n)] for n in lengths]


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
    cases = [_case("warm-up", _prompts(rng), NEW_TOKENS)]  # not timed
    for i in range(REPETITIONS):
        cases.append(_case(f"timed-{i}", _prompts(rng), NEW_TOKENS, timed=True))
    return cases


def run(sub, args):
    model = zoo.model(MODEL)
    with torch.inference_mode():
        rows = sub.decode_batch(model, [list(p) for p in args["prompts"]], args["max_new_tokens"])
    return [[int(t) for t in row] for row in rows]
