"""Cases for tokens-processed: the chapter's exercise 1 and seeded (prompt, output) pairs."""

import random


def _case(name: str, prompt_len: int, new_tokens: int) -> dict:
    return {"name": name, "args": {"prompt_len": prompt_len, "new_tokens": new_tokens}}


def public_cases() -> list[dict]:
    return [
        _case("chapter-p100-n1000", 100, 1000),
        _case("one-token-reply", 1, 1),
        _case("single-step-after-long-prompt", 4096, 1),
        _case("chat-p512-n256", 512, 256),
        _case("long-output-p32-n32768", 32, 32768),
    ]


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(30):
        # Mix tiny edge values with realistic prompt and output lengths.
        prompt_len = rng.choice([1, 2, rng.randint(1, 64), rng.randint(64, 131072)])
        new_tokens = rng.choice([1, 2, rng.randint(1, 64), rng.randint(64, 65536)])
        if prompt_len <= 64 and new_tokens <= 64:
            # Two small values are a few thousand pairs in all, which a table could hold
            # (and the tiny corners are public cases): keep one length realistic.
            new_tokens = rng.randint(64, 65536)
        cases.append(_case(f"gen-{i:02d}", prompt_len, new_tokens))
    # A very long generation, where the quadratic term dominates by far.
    cases.append(_case("gen-huge", rng.randint(1, 10**6), rng.randint(10**6, 10**7)))
    return cases


def run(sub, args):
    return sub.tokens_processed(args["prompt_len"], args["new_tokens"])
