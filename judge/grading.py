"""Turn what happened on a case (an Outcome) into a CaseResult with a verdict."""

from __future__ import annotations

from judge.cases import Case
from judge.checkers import check
from judge.outcome import ExitInfo, Outcome
from judge.report import CaseResult
from judge.verdict import Verdict


def grade(case: Case, outcome: Outcome, expected: object) -> CaseResult:
    """The verdict for one case; got/expected are only ever attached to public cases."""
    base = {"name": case.name, "public": case.public, "time_ms": outcome.time_ms}
    if outcome.kind == "result":
        mismatch = check(outcome.observation, expected, case.check)
        if mismatch is None:
            return CaseResult(verdict=Verdict.AC, **base)  # type: ignore[arg-type]
        reveal = case.public
        return CaseResult(
            verdict=Verdict.WA,
            message=mismatch.describe(reveal=False),
            got=mismatch.got if reveal else None,
            expected=mismatch.expected if reveal else None,
            **base,  # type: ignore[arg-type]
        )
    if outcome.kind == "skipped":
        return CaseResult(verdict=None, message="not run", **base)  # type: ignore[arg-type]
    verdict, message = describe_failure(outcome)
    return CaseResult(
        verdict=verdict, message=message, line=outcome.line, traceback=outcome.traceback, **base
    )  # type: ignore[arg-type]


def describe_failure(outcome: Outcome) -> tuple[Verdict, str]:
    """Verdict and message for an outcome that produced no observation."""
    if outcome.kind == "error":
        if outcome.exception == "MemoryError":
            return Verdict.MLE, "ran out of memory (MemoryError)"
        return Verdict.RE, outcome.message or outcome.exception
    if outcome.kind == "bad_observation":
        return Verdict.WA, f"returned a value the judge cannot compare: {outcome.message}"
    if outcome.kind == "timeout":
        return Verdict.TLE, "time limit exceeded"
    if outcome.kind == "output_limit":
        return Verdict.OLE, outcome.message
    if outcome.kind == "protocol":
        return Verdict.RE, outcome.message
    if outcome.kind == "crash":
        return crash_verdict(outcome.exit)
    raise ValueError(f"unknown outcome kind {outcome.kind!r}")


def crash_verdict(info: ExitInfo | None) -> tuple[Verdict, str]:
    """The process ended before it answered."""
    if info is None:
        return Verdict.RE, "the process ended before answering"
    if info.oom_killed:
        return Verdict.MLE, "killed for exceeding the memory limit"
    if info.cpu_limit:
        return Verdict.TLE, "CPU time limit exceeded"
    if info.signal is not None:
        import signal

        try:
            name = signal.Signals(info.signal).name
        except ValueError:
            name = f"signal {info.signal}"
        return Verdict.RE, f"the process was killed by {name}"
    return Verdict.RE, f"the process exited with code {info.returncode} before answering"
