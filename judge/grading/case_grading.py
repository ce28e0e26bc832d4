"""Turn what happened on a case (an Outcome) into a CaseResult with a verdict."""

from __future__ import annotations

import math

from judge.errors import BadReference
from judge.grading.outcome import NOT_TIMED, ExitInfo, Outcome, OutcomeKind
from judge.grading.report import CaseResult
from judge.messages import Message, raw, recognise, say
from judge.problem.cases import Case
from judge.problem.checkers import check
from judge.problem.limits import RuleClock
from judge.record import replace
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.pictures.reproduce import Reproducer
    from judge.problem.limits import CpuAllowance


def grade(
    case: Case,
    outcome: Outcome,
    expected: object,
    reproducer: Reproducer | None = None,
    allowance: CpuAllowance | None = None,
) -> CaseResult:
    """The verdict for one case. Only a public case ever gets got/expected, what it
    printed, the CPU time it used of its `allowance` (a calibrated case) and, when it
    fails, its input and (with a `reproducer`) a test reproducing it."""
    result, step = _grade(case, outcome, expected)
    if not case.public:
        return conceal(result)
    if outcome.stdout or outcome.stderr:
        result = replace(result, stdout=outcome.stdout, stderr=outcome.stderr)
    used = _used(outcome, allowance)
    if result.verdict is Verdict.AC and allowance is not None and used is not None:
        said = _cpu_within(used, allowance)
        return replace(result, message=said.en, text=said)
    if result.verdict is Verdict.AC and case.check.unchecked:
        return _with_run_picture(result, case, outcome, expected)
    if result.verdict in (Verdict.AC, None):
        return result
    from judge.pictures.case_input import case_input  # only a failing public case shows its input

    raised = outcome.kind is OutcomeKind.ERROR
    shown = case_input(case.args, expected, step, got=outcome.observation, raised=raised)
    test = reproducer.snippet(case.name, shown, expected, case.check) if reproducer else None
    return replace(result, input=shown, test=test)


def _with_run_picture(
    result: CaseResult, case: Case, outcome: Outcome, expected: object
) -> CaseResult:
    """A passing public case whose observation carries a picture's data that the checker
    does not compare (a serving engine's timeline): its input and picture, so a learner can
    set their run beside the reference's even when both are right."""
    from judge.pictures.case_input import case_input

    shown = case_input(case.args, expected, None, got=outcome.observation)
    return replace(result, input=shown) if shown.picture is not None else result


def _grade(case: Case, outcome: Outcome, expected: object) -> tuple[CaseResult, int | None]:
    """The result, and the trace step that differs first where a checker names one."""
    if outcome.kind is OutcomeKind.RESULT:
        try:
            mismatch = check(outcome.observation, expected, case.check)
        except BadReference:
            raise  # the judge's fault: an IE report, never a WA
        except Exception as exc:  # noqa: BLE001 - whatever the data did, it was submitted
            return _result(case, outcome, Verdict.WA, _uncomparable(exc)), None
        if mismatch is None:
            return _result(case, outcome, Verdict.AC), None
        reveal = case.public
        diff = None
        if reveal:  # imported here: only a failing public case shows the values (start-up)
            from judge.pictures.value_diff import value_diff

            diff = value_diff(outcome.observation, expected, mismatch.path)
        result = CaseResult.saying(
            mismatch.message(reveal=reveal, with_values=False),
            name=case.name,
            public=case.public,
            verdict=Verdict.WA,
            time_ms=outcome.time_ms,
            got=mismatch.got if reveal else None,
            expected=mismatch.expected if reveal else None,
            diff=diff,
        )
        return result, mismatch.step_index
    if outcome.kind is OutcomeKind.SKIPPED:
        why = "case.not_timed" if outcome.message == NOT_TIMED else "case.not_run"
        return _result(case, outcome, None, say(why)), None
    verdict, message = describe_failure(outcome)
    step = _raising_step(outcome, expected) if message.key == "raw" else None
    if step is not None:  # a plain exception inside a trace's step: say which step
        labels: list[dict[str, str]] = expected  # type: ignore[assignment]
        at = say("check.step", index=step, op=labels[step]["op"])
        message = say("case.raised_at", step=at, error=message)
    return _result(case, outcome, verdict, message), step


def _raising_step(outcome: Outcome, expected: object) -> int | None:
    """The trace step an exception left, where the child's count (a hint: the submission
    shares its process) is a step of the reference's trace; the call is named from there.
    Only what is shown depends on it: an exception is RE at whichever step it was."""
    if outcome.step is None:
        return None
    from judge.pictures.case_input import trace_labels  # only an exception's case needs it

    labels = trace_labels(expected)
    return outcome.step if labels is not None and outcome.step < len(labels) else None


# What a hidden case says: its verdict and the judge's one sentence for that verdict.
# Anything more is chosen by the submission, which knows the case's inputs: where a value
# first differs (it corrupts the index it likes), an exception's class (a class of its own
# may be called "KeyError"), the line it raised from, which limit it broke, the exact time
# it took. Each could spell out a few bits of the inputs per case.
HIDDEN_SAYS = {
    Verdict.WA: "hidden.wrong_answer",
    Verdict.RE: "hidden.runtime_error",
    Verdict.TLE: "hidden.time_limit",
    Verdict.MLE: "hidden.memory_limit",
    Verdict.OLE: "hidden.output_limit",
}
# Judge-chosen reasons that stay, as one fixed sentence: an honest solution on a machine
# whose bandwidth was misjudged must be told why its right answers were refused.
_HIDDEN_REASONS = {"case.too_fast": "hidden.too_fast"}
# A hidden case's time is shown rounded up to a tenth of the per-case time limit: enough
# to tell a learner how close it came to the limit, at most ten values per case.
TIME_STEPS = 10


def conceal(result: CaseResult, step_ms: float | None = None) -> CaseResult:
    """A hidden case as a learner sees it: name, verdict, the judge's sentence for the
    verdict and its time rounded up to a multiple of `step_ms` (None: exact, for the judge's
    own use until the report is built; a speed problem scores the exact times first)."""
    if result.verdict is None:  # why it did not run is the judge's doing, never the code's
        timed = result.text is not None and result.text.key == "case.not_timed"
        message: Message | None = say("case.not_timed" if timed else "case.not_run")
    elif result.verdict is Verdict.AC:
        message = None
    else:
        reason = _HIDDEN_REASONS.get(result.text.key) if result.text is not None else None
        message = say(reason or HIDDEN_SAYS.get(result.verdict, f"verdict.{result.verdict}"))
    return CaseResult(
        name=result.name,
        public=False,
        verdict=result.verdict,
        time_ms=result.time_ms if step_ms is None else coarse_ms(result.time_ms, step_ms),
        message=message.en if message is not None else "",
        text=message,
    )


def time_step_ms(time_per_case_s: float) -> float:
    """The granularity of a hidden case's time: a tenth of its limit, in milliseconds."""
    return time_per_case_s * 1000 / TIME_STEPS


def coarse_ms(time_ms: float, step_ms: float) -> float:
    """`time_ms` rounded up to a multiple of `step_ms`; a case that ran shows at least one
    step, one that never ran stays at 0."""
    if time_ms <= 0 or step_ms <= 0:
        return 0.0 if time_ms <= 0 else time_ms
    return round(math.ceil(time_ms / step_ms) * step_ms, 3)


def _used(outcome: Outcome, allowance: CpuAllowance | None) -> float | None:
    """What a calibrated case used of its allowance's clock: CPU seconds, or wall seconds
    on a CUDA job (the parent's time from request to answer)."""
    if allowance is None:
        return None
    if allowance.clock is RuleClock.WALL:
        return outcome.time_ms / 1000
    return outcome.cpu_s


def _cpu_within(used_s: float, allowance: CpuAllowance) -> Message:
    """How close a passing calibrated case came to its CPU allowance: a learner tuning for
    the rule sees the margin before a TLE tells them (hidden cases never show it, since the
    reference's time says how large the case is)."""
    return say(
        "case.wall_within" if allowance.clock is RuleClock.WALL else "case.cpu_within",
        used=f"{used_s:.2f}",
        allowed=f"{allowance.seconds:.2f}",
        reference=f"{allowance.reference_s:.2f}",
    )


def _uncomparable(exc: Exception) -> Message:
    """A checker tripped over submitted data: say so, without the judge's own traceback."""
    return say("case.uncomparable", type=type(exc).__name__)


def _result(
    case: Case, outcome: Outcome, verdict: Verdict | None, message: Message | None = None
) -> CaseResult:
    return CaseResult(
        name=case.name,
        public=case.public,
        verdict=verdict,
        time_ms=outcome.time_ms,
        message=message.en if message is not None else "",  # an accepted case says nothing
        text=message,
        line=outcome.line,
        traceback=outcome.traceback,
    )


# What the parent's session writes as English text (judge/run/session.py, judge/problem/limits.py),
# read back as the catalog's messages; text that matches none is shown as it is.
_SESSION_SAYS = (
    "case.time_limit",
    "case.cpu_limit",
    "case.printed_too_much",
    "case.too_much_data",
    "case.trailing",
    "case.no_load_ack",
    "case.cpu_hidden",
    "case.cpu_public",
    "case.wall_hidden",
    "case.wall_public",
)


def describe_failure(outcome: Outcome) -> tuple[Verdict, Message]:
    """Verdict and message for an outcome that produced no observation."""
    # A match over every member: mypy reports a missing return if a kind is left out.
    match outcome.kind:
        case OutcomeKind.ERROR:
            if outcome.exception in ("MemoryError", "OutOfMemoryError"):  # the latter: torch GPU
                return Verdict.MLE, say("case.out_of_memory")
            from judge.problem.withheld import message_for, withheld_name  # an error's case only

            module = (
                withheld_name(outcome.message) if outcome.exception == "WithheldModule" else None
            )
            if module:  # imported inside a function: what the problem asks the learner to write
                return Verdict.RE, message_for(module)
            return Verdict.RE, raw(outcome.message or outcome.exception)
        case OutcomeKind.BAD_OBSERVATION:
            return Verdict.WA, say("case.bad_value", detail=outcome.message)
        case OutcomeKind.TIMEOUT:  # the wall clock, or a calibrated case's CPU allowance
            return Verdict.TLE, recognise(outcome.message or "time limit exceeded", _SESSION_SAYS)
        case OutcomeKind.OUTPUT_LIMIT | OutcomeKind.PROTOCOL:
            verdict = Verdict.OLE if outcome.kind is OutcomeKind.OUTPUT_LIMIT else Verdict.RE
            return verdict, recognise(outcome.message, _SESSION_SAYS)
        case OutcomeKind.CRASH:
            return crash_verdict(outcome.exit)
        case OutcomeKind.RESULT | OutcomeKind.SKIPPED:
            raise ValueError(f"a {outcome.kind} outcome is not a failure")


def crash_verdict(info: ExitInfo | None) -> tuple[Verdict, Message]:
    """The process ended before it answered."""
    if info is None:
        return Verdict.RE, say("case.ended")
    if info.device_memory is not None:
        over = info.device_memory
        return Verdict.MLE, say("case.device_memory", used=over.used_mb, limit=over.limit_mb)
    if info.oom_killed:
        return Verdict.MLE, say("case.oom_killed")
    if info.cpu_limit:
        return Verdict.TLE, say("case.cpu_limit")
    if info.signal is not None:
        import signal

        try:
            name = signal.Signals(info.signal).name
        except ValueError:
            name = f"signal {info.signal}"
        return Verdict.RE, say("case.killed", signal=name)
    return Verdict.RE, say("case.exit_code", code=str(info.returncode))
