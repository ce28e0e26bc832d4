"""Every problem judges in the sandbox exactly as its folder declares: the walls break no problem."""

from __future__ import annotations

import pytest

from judge.judging import judge_source
from judge.problemset import ProblemSet
from judge.verdict import Verdict
from runner.launcher import SandboxLauncher

PROBLEMS = ProblemSet().all()


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.slug for p in PROBLEMS])
def test_reference_and_wrong_solutions_get_their_verdicts_in_the_sandbox(
    problem, warm_launcher: SandboxLauncher
) -> None:  # type: ignore[no-untyped-def]
    reference = judge_source(problem, problem.reference_source(), launcher=warm_launcher, seed=7)
    assert reference.verdict is Verdict.AC, reference.to_dict()
    for wrong in problem.wrong_solutions():
        source = wrong.path.read_text(encoding="utf-8")
        report = judge_source(problem, source, launcher=warm_launcher, seed=7)
        assert report.verdict is wrong.expect, (wrong.path.name, report.verdict)
