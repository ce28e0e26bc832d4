"""Issue 20, section 2: no rule reads a value the job can write.

batched-decode's "one batch, not one prompt at a time" was a call counter inside the job:
decoding one prompt at a time and then setting the counter back was AC. The rule is now the
kernel's count of the job's CPU time against the reference's on the same launcher; the
submission can set whatever it likes inside its process.
"""

from __future__ import annotations

import pytest

from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher

PROBLEM = ProblemSet().get("batched-decode")
ONE_AT_A_TIME_THEN_RESET = (
    PROBLEM.reference_source()
    + """

_batched = batched_greedy


def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    rows = [_batched(model, [p], max_new_tokens, stop_tokens)[0] for p in prompts]
    model.calls = 0  # what reset the old counter
    return rows
"""
)


@pytest.fixture
def launcher(warm_launcher: SandboxLauncher) -> SandboxLauncher:
    """The suite's warm worker (tests/runner/conftest.py): one of this module's own would
    import torch and load the models again."""
    return warm_launcher


def test_decoding_one_prompt_at_a_time_is_stopped_by_the_kernels_count(
    launcher: SandboxLauncher,
) -> None:
    report = judge_source(PROBLEM, ONE_AT_A_TIME_THEN_RESET, launcher=launcher, seed=5)
    verdicts = {c.name: c.verdict for c in report.cases}
    assert report.verdict is Verdict.TLE, verdicts
    assert verdicts["cpu-rule-eight-rows"] is Verdict.TLE
    assert verdicts["ragged-lengths"] is Verdict.AC  # its tokens are right: only the rule fails
    assert report.environment["cpu_rule"].startswith("enforced: CPU time counted by the job's")
