"""The reference's CPU time on a problem's calibrated cases, measured as a submission's is.

A calibrated case's allowance (judge/problem/limits.py CpuRule) is relative to what reference.py
needs on that very case, on the same kind of worker, counted the same way: the reference
runs as a child of the same launcher, and the kernel's count of its CPU time is read by
the parent (judge/run/cpu_clock.py). Nothing the submission does can change the reference's
figure, and its own figure is the kernel's, not its own clock's.
"""

from __future__ import annotations

from judge.grading.outcome import OutcomeKind
from judge.problem.cases import Case
from judge.problem.limits import CpuAllowance, Limits
from judge.problem.spec import ProblemSpec
from judge.run.session import Session

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher


class CalibrationFailed(RuntimeError):
    """The reference did not answer a calibrated case: the judge's failure (IE)."""


def calibrate(
    problem: ProblemSpec,
    cases: list[Case],
    launcher: Launcher,
    limits: Limits,
    load: dict[str, object],
) -> dict[str, CpuAllowance] | None:
    """Each calibrated case's allowance; {} when there are none; None where this launcher
    cannot count a child's CPU time (the rule is then not enforced, and reports say so)."""
    rule = problem.cpu_rule
    chosen = [case for case in cases if case.calibrated]
    if rule is None or not chosen:
        return {}
    handle = launcher.launch(problem, limits)
    try:
        if handle.cpu_seconds() is None:
            return None
        result = Session(handle, limits, problem.tier).run(load, chosen)
    finally:
        handle.cleanup()
    allowances = {}
    for case, outcome in zip(chosen, result.outcomes, strict=True):
        if outcome.kind is not OutcomeKind.RESULT or outcome.cpu_s is None:
            detail = result.load_error or outcome.message or outcome.kind.value
            raise CalibrationFailed(f"the reference did not answer {case.name}: {detail}")
        allowances[case.name] = CpuAllowance(rule, outcome.cpu_s)
    return allowances
