"""The checkpoints a warm worker preloads are shared with its jobs by fork: a job that
scribbles on them changes only its own copy, never the next job's model."""

from __future__ import annotations

import pytest

from judge.problem.problemset import ProblemSet
from judge.record import replace
from judge.verdict import Verdict
from runner.api import Runner

ATTENTION = """
def decode_attention(q, k, v):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = (q[:, :, None, :] @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    return (scores.softmax(-1) @ v)[:, :, 0]
"""
POISON = (
    ATTENTION
    + """
import torch
from mini_llm import model as model_module, zoo

for name in zoo.CHECKPOINTS:
    try:
        m = zoo.model(name)
    except Exception:
        continue
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
model_module.Transformer.forward = lambda self, *a, **k: None
zoo._loaded.clear()
"""
)
CHECK = (
    ATTENTION
    + """
from mini_llm import model as model_module, zoo

m = zoo._loaded["qwen3-gqa"]  # still preloaded: nobody emptied the table for this job
assert float(m.embed.weight.abs().sum()) > 0, "the weights were zeroed by an earlier job"
assert model_module.Transformer.forward.__name__ == "forward", "forward was patched"
"""
)


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_job_that_poisons_the_shared_models_leaves_the_next_job_clean() -> None:
    problem = ProblemSet().get("attention-decode")
    with Runner(pool_size=1) as runner:
        before = runner.judge(problem, CHECK)
        poisoned = runner.judge(problem, POISON)
        after = runner.judge(problem, CHECK)
    assert before.verdict is Verdict.AC, before.to_dict()
    assert poisoned.verdict is Verdict.AC, poisoned.to_dict()
    assert after.verdict is Verdict.AC, [c.message for c in after.cases]


def _loaded_are(names: list[str]) -> str:
    return (
        ATTENTION
        + f"""
from mini_llm import zoo

assert sorted(zoo._loaded) == {names!r}, f"the worker had loaded {{sorted(zoo._loaded)}}"
"""
    )


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_fresh_worker_loads_only_the_checkpoints_its_problem_names() -> None:
    """A cold launcher starts a worker per job: it loads what problem.toml `models` names
    (attention-decode: none; here also the same problem naming one), never all four."""
    problem = ProblemSet().get("attention-decode")
    naming_one = replace(problem, models=("qwen3-gqa",))
    with Runner(pool_size=0) as runner:
        none = runner.judge(problem, _loaded_are([]))
        one = runner.judge(naming_one, _loaded_are(["qwen3-gqa"]))
    assert none.verdict is Verdict.AC, none.to_dict(admin=True)
    assert one.verdict is Verdict.AC, one.to_dict(admin=True)
