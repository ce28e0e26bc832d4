"""Every problem judges in the sandbox exactly as its folder declares: the walls break no problem."""

from __future__ import annotations

import pytest
from torch_tier import problem_params

from judge.judging import judge_source
from judge.problemset import ProblemSet
from judge.spec import ProblemSpec
from judge.verdict import Verdict
from runner.launcher import SandboxLauncher


@pytest.mark.slow
@pytest.mark.parametrize("problem", problem_params(ProblemSet().all()))
def test_reference_and_wrong_solutions_get_their_verdicts_in_the_sandbox(
    problem: ProblemSpec, warm_launcher: SandboxLauncher
) -> None:
    """Torch-tier problems skip, saying so, where torch is not installed."""
    reference = judge_source(problem, problem.reference_source(), launcher=warm_launcher, seed=7)
    assert reference.verdict is Verdict.AC, reference.to_dict()
    for wrong in problem.wrong_solutions():
        source = wrong.path.read_text(encoding="utf-8")
        report = judge_source(problem, source, launcher=warm_launcher, seed=7)
        assert report.verdict is wrong.expect, (wrong.path.name, report.verdict)
