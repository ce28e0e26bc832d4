"""kv-cache: what its statement promises about the expected side holds.

The expected observations come from reference.py's cache; the statement says they equal a
full recomputation without any cache, that any correct cache design is accepted, and the
greedy tokens it compares exactly are never near-ties.
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

PROBLEM = ProblemSet().get("kv-cache")
CASES = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path))
REFERENCE = load_module(PROBLEM.reference_source(), "reference", str(PROBLEM.path))


def _all_cases() -> list[dict]:
    return CASES.public_cases() + CASES.generated_cases(random.Random(PUBLIC_SEED))


def _full_recompute(args: dict, steps: list[dict]) -> torch.Tensor:
    """Logits of every position from one forward pass without a cache, over the same ids."""
    model = zoo.model(args["model"])
    batch, prompt_len = args["batch"], sum(args["chunks"])
    gen = torch.Generator().manual_seed(args["seed"])
    prompt = torch.randint(model.cfg.vocab_size, (batch, prompt_len), generator=gen)
    mask = torch.ones(batch, prompt_len + args["decode"], dtype=torch.long)
    for row, pad in enumerate(args.get("pad") or []):
        prompt[row, :pad] = CASES.PAD_ID
        mask[row, :pad] = 0
    fed = [torch.tensor(s["result"]["token"])[:, None] for s in steps[len(args["chunks"]) - 1 :]]
    ids = torch.cat([prompt, *fed[: args["decode"]]], dim=1)  # (B, P + decode)
    with torch.no_grad():
        return model(ids, None, mask if "pad" in args else None)  # (B, P + decode, V)


@pytest.mark.parametrize("case", CASES.public_cases(), ids=lambda c: c["name"])
def test_the_expected_logits_equal_a_full_recomputation_within_the_stated_tolerance(
    case: dict,
) -> None:
    steps = CASES.run(REFERENCE, case["args"])
    full = _full_recompute(case["args"], steps)[..., : CASES.SHOWN]
    incremental = torch.cat([s["result"]["logits"] for s in steps], dim=1)
    assert torch.allclose(incremental, full, rtol=1e-4, atol=1e-4)


def test_greedy_tokens_are_never_near_ties_on_the_public_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tokens are compared exactly while the parent and the child run torch on different
    thread counts (logits differ in the last bits): a near-tie would flip between them."""
    monkeypatch.setattr(CASES, "SHOWN", 10**6)  # the whole vocabulary, where the argmax is
    smallest = min(
        float(top[:, 0].sub(top[:, 1]).min())
        for case in _all_cases()
        for step in CASES.run(REFERENCE, case["args"])
        for top in [step["result"]["logits"][:, -1].topk(2, dim=-1).values]
    )
    assert smallest > 1e-4, smallest


def test_a_preallocated_cache_is_accepted_too() -> None:
    """A cache that grows doubling buffers and hands out views (as mini_llm's own does, which
    the problem withholds) keeps the same contract, so it must be AC as well."""
    source = (PROBLEM.path / "solutions" / "accepted" / "preallocated_buffers.py").read_text()
    report = judge_source(PROBLEM, source, seed=7)
    assert report.verdict is Verdict.AC, report.to_dict()


def test_mini_llms_own_cache_is_refused_saying_the_cache_is_the_exercise() -> None:
    """Issue 20: `from mini_llm.kv_cache import KVCache` was AC."""
    report = judge_source(PROBLEM, "from mini_llm.kv_cache import KVCache\n", seed=7)
    assert report.verdict is Verdict.CE
    assert report.compile_error is not None
    assert report.compile_error["message_key"] == "load.withheld"
