"""The reference's CPU time on a problem's calibrated cases, measured as a submission's is.

A calibrated case's allowance (judge/problem/limits.py CpuRule) is relative to what reference.py
needs on that very case, on the same kind of worker, counted the same way: the reference
runs as a child of the same launcher, and the kernel's count of its CPU time is read by
the parent (judge/run/cpu_clock.py). Nothing the submission does can change the reference's
figure, and its own figure is the kernel's, not its own clock's.

On a CUDA job the kernel's CPU count misses the GPU's work, so the rule counts wall time
instead (judge/problem/limits.py RuleClock): the reference runs as a child on the same
device, and the parent's clock times it from request to answer, as it times the submission.
"""

from __future__ import annotations

from judge.grading.outcome import Outcome, OutcomeKind
from judge.problem.cases import Case
from judge.problem.device import Device
from judge.problem.limits import CpuAllowance, Limits, RuleClock
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
    device: Device = Device.CPU,
) -> dict[str, CpuAllowance] | None:
    """Each calibrated case's allowance on `device` (the job's, as `load` says); {} when
    there are none; None where a CPU job's CPU time cannot be counted by this launcher (the
    rule is then not enforced, and reports say so)."""
    rule = problem.cpu_rule
    chosen = [case for case in cases if case.calibrated]
    if rule is None or not chosen:
        return {}
    clock = rule_clock(device)
    handle = launcher.launch(problem, limits, device)
    try:
        if clock is RuleClock.CPU and handle.cpu_seconds() is None:
            return None
        result = Session(handle, limits, problem.tier).run(load, chosen)
    finally:
        handle.cleanup()
    allowances = {}
    for case, outcome in zip(chosen, result.outcomes, strict=True):
        used = measured(outcome, clock)
        if outcome.kind is not OutcomeKind.RESULT or used is None:
            detail = result.load_error or outcome.message or outcome.kind.value
            raise CalibrationFailed(f"the reference did not answer {case.name}: {detail}")
        allowances[case.name] = CpuAllowance(rule, used, clock)
    return allowances


def rule_clock(device: Device) -> RuleClock:
    """What a calibrated case counts on `device`: CPU time on the CPU, wall time on CUDA."""
    return RuleClock.WALL if device is Device.CUDA else RuleClock.CPU


def measured(outcome: Outcome, clock: RuleClock) -> float | None:
    """A case's figure under `clock`, in seconds: the kernel's CPU count, or the parent's
    time from request to answer; None where it was not counted."""
    if clock is RuleClock.WALL:
        return outcome.time_ms / 1000
    return outcome.cpu_s
