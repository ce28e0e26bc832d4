"""batched-decode: what its statement promises about the cases holds.

The checker compares greedy tokens exactly, so the statement promises that no case has a
near tie (top-2 logit gap >= MIN_GAP at every step, each prompt decoded alone), that the
reference's batched rows equal each prompt decoded alone, and that any correct layout is
accepted, not only the reference's left padding.
"""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from judge.problem.cases import PUBLIC_SEED, load_module  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402
from judge.run.judge_source import judge_source  # noqa: E402
from judge.verdict import Verdict  # noqa: E402
from mini_llm import zoo  # noqa: E402

PROBLEM = ProblemSet().get("batched-decode")
CASES = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path))
REFERENCE = load_module(PROBLEM.reference_source(), "reference", str(PROBLEM.path))


def _alone(args: dict) -> list[list[int]]:
    """Each prompt decoded alone, with the stop rule applied to its free run."""
    stops = set(args["stop_tokens"])
    transformer = zoo.model(args["model"])
    rows = []
    for prompt in args["prompts"]:
        (run,), _ = CASES.greedy_runs(transformer, [prompt], args["max_new_tokens"])
        ends = [i for i, token in enumerate(run) if token in stops]
        rows.append(run[: ends[0] + 1] if ends else run)
    return rows


def test_no_public_case_has_a_near_tie() -> None:
    for case in CASES.public_cases():
        args = case["args"]
        _, gaps = CASES.greedy_runs(
            zoo.model(args["model"]), args["prompts"], args["max_new_tokens"]
        )
        assert min(gaps) >= CASES.MIN_GAP, case["name"]


def test_the_reference_equals_every_prompt_decoded_alone() -> None:
    cases = CASES.public_cases() + CASES.generated_cases(random.Random(PUBLIC_SEED))
    for case in cases:
        assert CASES.run(REFERENCE, case["args"]) == _alone(case["args"]), case["name"]


def test_the_stop_cases_stop_the_rows_they_name() -> None:
    by_name = {c["name"]: c["args"] for c in CASES.public_cases()}
    early = [len(r) for r in _alone(by_name["one-row-stops-early"])]
    assert early == [12, 4, 12]
    assert [len(r) for r in _alone(by_name["stop-on-the-first-token"])] == [1, 10]
    assert [len(r) for r in _alone(by_name["every-row-stops"])] == [4, 9, 8, 9]


RIGHT_PADDED = """
import torch
from mini_llm.kv_cache import KVCache


def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    lengths = [len(p) for p in prompts]
    width = max(lengths)
    ids = torch.tensor([p + [0] * (width - len(p)) for p in prompts])
    mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])
    cache = KVCache(model.cfg.num_hidden_layers)
    logits = model(ids, cache, mask)[torch.arange(len(prompts)), torch.tensor(lengths) - 1]
    out, done = [[] for _ in prompts], [False] * len(prompts)
    for step in range(max_new_tokens):
        nxt = logits.argmax(-1)
        for b, token in enumerate(nxt.tolist()):
            if not done[b]:
                out[b].append(token)
                done[b] = token in stop_tokens
        if all(done) or step == max_new_tokens - 1:
            return out
        mask = torch.cat([mask, torch.ones(len(prompts), 1, dtype=mask.dtype)], dim=1)
        logits = model(nxt[:, None], cache, mask)[:, -1]
    return out
"""


def test_right_padding_with_a_mask_is_accepted_too() -> None:
    """The statement allows any layout: right padding, reading each row's own last token."""
    report = judge_source(PROBLEM, RIGHT_PADDED, seed=7)
    assert report.verdict is Verdict.AC, [c.message for c in report.cases if c.message]
