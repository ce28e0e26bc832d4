"""Every problem judges in the sandbox exactly as its folder declares: the walls break no problem."""

from __future__ import annotations

import pytest
from torch_tier import problem_params

from judge.commands.selfcheck import check_problem
from judge.kinds.registry import kind_of
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher

PROBLEMS = ProblemSet().all()


@pytest.mark.slow
@pytest.mark.parametrize("problem", problem_params(p for p in PROBLEMS if p.tier == "torch"))
def test_judge_check_passes_in_the_sandbox_for_every_torch_problem(
    problem: ProblemSpec, warm_launcher: SandboxLauncher
) -> None:
    """`judge check --sandbox` in full (the reference on three seeds, the starter, every
    wrong solution where it declares, determinism), in a warm worker as on the server: the
    models preloaded, the CPU-time rule calibrated there, one torch thread per job. Skips,
    saying so, where torch is not installed."""
    result = check_problem(problem, warm_launcher)
    failing = [f"{c.name}: {c.detail}" for c in result.checks if not c.ok]
    assert not failing, "\n".join(failing)


@pytest.mark.slow
@pytest.mark.parametrize(
    "problem", [p for p in PROBLEMS if p.tier == "browser"], ids=lambda p: p.slug
)
def test_reference_and_wrong_solutions_get_their_verdicts_in_the_sandbox(
    problem: ProblemSpec, warm_launcher: SandboxLauncher
) -> None:
    judge = kind_of(problem).judge  # a quiz is judged by its kind, in the trusted process
    reference = judge(problem, problem.reference_source(), launcher=warm_launcher, seed=7)
    assert reference.verdict is Verdict.AC, reference.to_dict()
    for wrong in problem.wrong_solutions():
        source = wrong.path.read_text(encoding="utf-8")
        report = judge(problem, source, launcher=warm_launcher, seed=7)
        assert report.verdict is wrong.expect, (wrong.path.name, report.verdict)
