"""cached-attention: the expected side is mini_llm's own attention, to the stated tolerance.

The problem's expected observations come from reference.py, written out op by op; here
mini_llm's attention (mini_llm.attention), run on the same weights, drives every case in
this process: the reference's outputs must equal it within the tolerance the statement
gives. As a submission it is refused: mini_llm's attention is what the problem withholds.
A full causal pass over the whole sequence must agree with the chunked calls too: that is
what the cache is for.
"""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from judge.problem.cases import PUBLIC_SEED, load_module  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402
from judge.run.judge_source import judge_source  # noqa: E402
from judge.verdict import Verdict  # noqa: E402

PROBLEM = ProblemSet().get("cached-attention")
CASES = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path))
REFERENCE = load_module(PROBLEM.reference_source(), "reference", str(PROBLEM.path))

# A submission that hands the work to mini_llm: its Attention module, filled with the
# case's weights, and a one-layer cache that starts from the given keys and values.
MINI_LLM_SUBMISSION = """
import torch
from mini_llm.attention import Context, Positions, attend, rotary_tables
from mini_llm.config import ModelConfig
from mini_llm.model import Attention


class _Cache:
    def __init__(self, k, v):
        self.k, self.v = k, v

    def update(self, layer, k, v):
        self.k = torch.cat([self.k, k], dim=2)
        self.v = torch.cat([self.v, v], dim=2)
        return self.k, self.v


def attention_forward(x, weights, cache_k, cache_v, config):
    B, T, D = x.shape
    qwen3 = "q_norm" in weights
    cfg = ModelConfig(
        model_type="qwen3" if qwen3 else "llama", vocab_size=8, hidden_size=D,
        intermediate_size=8, num_hidden_layers=1, num_attention_heads=config["num_heads"],
        num_key_value_heads=config["num_kv_heads"], head_dim=config["head_dim"],
        rms_norm_eps=config["rms_norm_eps"], rope_theta=config["rope_theta"],
        max_position_embeddings=4096, tie_word_embeddings=False,
    )
    attn = Attention(cfg, 0)
    fused = torch.cat([weights["q_proj"], weights["k_proj"], weights["v_proj"]]).T
    attn.wqkv.weight.data = fused.contiguous()
    attn.wo.weight.data = weights["o_proj"].T.contiguous()
    if qwen3:
        attn.q_norm.weight.data = weights["q_norm"]
        attn.k_norm.weight.data = weights["k_norm"]
    start = cache_k.shape[2]
    rope = rotary_tables(cfg.head_dim, cfg.rope_theta)(
        Positions(start, start + T, None), torch.float32, x.device
    )
    visible = torch.arange(start + T) <= (start + torch.arange(T))[:, None]  # (T, S)
    mask = None if start == 0 else visible[None, None].expand(B, 1, T, start + T)
    cache = _Cache(cache_k, cache_v)
    out = attend(attn, x.reshape(B * T, D), B, Context(rope, mask), cache).view(B, T, D)
    return out, cache.k, cache.v
"""


def _mini_llm():
    return load_module(MINI_LLM_SUBMISSION, "submission", str(PROBLEM.path))


def _all_cases() -> list[dict]:
    return CASES.public_cases() + CASES.generated_cases(random.Random(PUBLIC_SEED))


@pytest.mark.parametrize("case", _all_cases(), ids=lambda c: c["name"])
def test_the_reference_equals_mini_llm_attention_within_the_stated_tolerance(case: dict) -> None:
    expected = CASES.run(REFERENCE, case["args"])
    got = CASES.run(_mini_llm(), case["args"])
    assert [s["op"] for s in got] == [s["op"] for s in expected]
    for g, e in zip(got, expected, strict=True):
        for key in ("out", "keys", "values"):
            assert torch.allclose(g["result"][key], e["result"][key], rtol=1e-4, atol=1e-5), key


@pytest.mark.parametrize("case", CASES.public_cases(), ids=lambda c: c["name"])
def test_chunked_calls_equal_one_causal_pass_over_the_whole_sequence(case: dict) -> None:
    """Only for cases that start from an empty cache: then one call over every chunk at once
    is the full recomputation the chunks must reproduce."""
    args = case["args"]
    if args["start"]:
        pytest.skip("starts from random cached keys: there is no whole sequence to redo")
    whole = CASES.run(REFERENCE, {**args, "chunks": [sum(args["chunks"])]})[0]["result"]
    chunks = CASES.run(REFERENCE, args)
    out = torch.cat([s["result"]["out"] for s in chunks], dim=1)
    assert torch.allclose(out, whole["out"], rtol=1e-4, atol=1e-5)
    assert torch.allclose(chunks[-1]["result"]["keys"], whole["keys"], rtol=1e-4, atol=1e-5)


def test_mini_llm_attention_as_a_submission_is_refused_saying_it_is_the_exercise() -> None:
    """Issue 20: handing the layer to mini_llm's own attention was AC; the problem withholds
    it, and the learner is told why (not an IE, not a bare ImportError)."""
    report = judge_source(PROBLEM, MINI_LLM_SUBMISSION, seed=7)
    assert report.verdict is Verdict.CE, report.to_dict()
    assert report.compile_error is not None
    assert report.compile_error["message_key"] == "load.withheld"
    assert "mini_llm.attention" in str(report.compile_error["message"])
