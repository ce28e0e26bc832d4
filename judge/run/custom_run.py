"""A learner's own input run on the reference and, where given, on their code, each in a
child of the same launcher a judged run uses ("Try your own input", `judge run --input`).

The reference runs in a child, not in this process as it does for the problem's own cases:
the arguments are the learner's, and a child has the run's time, memory and output limits.
The learner's code then runs on the same case and is graded against the reference's
answer by the problem's checker, so "different" means what it means in a real run.
Nothing here is a submission: there is no seed, no hidden case and no score.
"""

from __future__ import annotations

import json
import logging

from judge.errors import InputRefused
from judge.grading import environment
from judge.grading.case_grading import describe_failure, grade
from judge.grading.outcome import Outcome, OutcomeKind
from judge.grading.report import CaseResult, Report
from judge.messages import LANGS, Message, say
from judge.pictures.reproduce import Reproducer
from judge.problem.checkers import CheckSpec, show
from judge.problem.custom_input import CUSTOM_CASE, CustomInput
from judge.problem.device import Device
from judge.problem.spec import ProblemSpec
from judge.record import record, replace
from judge.run.budget import budget_for
from judge.run.judge_source import build_report
from judge.run.launch import LocalLauncher
from judge.run.load_message import load_message
from judge.run.session import Session, SessionResult
from judge.run.source_check import validate_source
from judge.run.workdir import WorkDir
from judge.wire.codec import decode, encode
from judge.wire.tensor import TensorData

# The most a browser-tier answer sent back as a case may hold (a public case's is a few
# hundred bytes): an input that makes the reference answer with megabytes is answered with
# its shown form only, and the page says it cannot compare it.
MAX_CASE_CHARS = 256 << 10

log = logging.getLogger(__name__)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher


@record
class CustomRun:
    """What a custom input gave: refused (nothing ran), or the reference's answer (or why it
    gave none) and, when code was given and the reference answered, the code's report."""

    args: object
    refused: Message | None = None
    reference: object = None  # the reference's observation, canonical; None until it answered
    reference_failure: Message | None = None
    report: Report | None = None
    check: CheckSpec | None = None  # how an answer is compared with the reference's

    @property
    def answered(self) -> bool:
        return self.refused is None and self.reference_failure is None

    def to_dict(self) -> dict[str, object]:
        """JSON data: sentences in both languages, the reference's answer shown as text and,
        where it is plain JSON (every browser-tier answer), as the value the browser's
        judge compares with."""
        out: dict[str, object] = {"args": self.args, "answered": self.answered}
        if self.refused is not None:
            out["refused"] = _both(self.refused)
        if self.reference_failure is not None:
            out["reference_failure"] = _both(self.reference_failure)
        if self.answered:
            out["reference"] = show(self.reference)  # bounded: MAX_SHOWN characters
            expected = _plain(self.reference)
            case = None
            if expected is not None and self.check is not None:
                case = _case_text(self.args, self.check, expected)
            if case is not None and len(case) > MAX_CASE_CHARS:
                expected = case = None  # too large to send: compared on the server only
            out["expected"] = expected
            if case is not None:
                out["case"] = case
        if self.report is not None:
            out["report"] = self.report.to_dict()
        return out


def run_custom(
    problem: ProblemSpec,
    args: object,
    source: str | None = None,
    launcher: Launcher | None = None,
) -> CustomRun:
    """Check `args`, run them on the reference, then on `source` if given. Raises SourceError
    for unacceptable source; a refused input or a reference that fails is in the result."""
    if source is not None:
        source = validate_source(source)
    try:
        custom = CustomInput.from_args(problem, args)
    except InputRefused as exc:
        assert exc.said is not None  # every refusal is a catalog sentence
        return CustomRun(args, refused=exc.said)
    try:
        if launcher is not None:  # it brings its own working place (the sandbox's /box)
            return _run(problem, custom, source, launcher)
        with WorkDir() as workdir:
            return _run(problem, custom, source, LocalLauncher(workdir.path))
    except Exception:  # whatever broke, it was the judge, not the learner
        log.exception("a custom input on %s failed", problem.slug)
        return CustomRun(custom.args, reference_failure=say("input.judge_failed"))


def _run(
    problem: ProblemSpec, custom: CustomInput, source: str | None, launcher: Launcher
) -> CustomRun:
    # The learner's code runs on the device a judging would choose; so does the reference,
    # so that what it shows beside the learner's answer is what that device computes.
    device = launcher.device_for(problem)
    reference, ran = _one_case(problem, custom, problem.reference_source(), launcher, device)
    if reference.kind is not OutcomeKind.RESULT:
        failure = _reference_failure(reference, ran)
        return CustomRun(custom.args, reference_failure=failure)
    if source is None:
        return CustomRun(custom.args, reference=reference.observation, check=custom.case.check)
    expected = {custom.case.name: reference.observation}
    yours, result = _one_case(problem, custom, source, launcher, device, expected)
    reproducer = Reproducer(problem.slug, problem.cases_source(), "")
    case = custom.case
    case = replace(case, check=case.check.on(device.value))
    graded: list[CaseResult] = [grade(case, yours, reference.observation, reproducer)]
    env = environment.describe(problem.tier, launcher.name, device)
    report = build_report(problem, [custom.case], graded, result, None, env, problem.limits)
    return CustomRun(
        custom.args, reference=reference.observation, report=report, check=custom.case.check
    )


def _one_case(
    problem: ProblemSpec,
    custom: CustomInput,
    source: str,
    launcher: Launcher,
    device: Device,
    expected: dict[str, object] | None = None,
) -> tuple[Outcome, SessionResult]:
    """The case run on `source` in a fresh child on `device`: its outcome, observation kept."""
    seen: list[Outcome] = []
    handle = launcher.launch(problem, problem.limits, device)
    driver = None
    try:
        budget = budget_for(expected) if expected is not None else None
        if problem.hosted:  # its driver in a trusted child of its own, as in a judged run
            from judge.run.hosted_session import HostedSession, start_driver

            driver = start_driver(problem, launcher, problem.limits, device)
            session: Session = HostedSession(handle, driver, problem.limits, problem.tier, budget)
        else:
            session = Session(handle, problem.limits, problem.tier, budget)
        load = load_message(problem, source, device)
        result = session.run(load, [custom.case], on_outcome=lambda _, o: seen.append(o))
    finally:
        try:
            if driver is not None:
                driver.cleanup()
        finally:
            handle.cleanup()
    return (seen[0] if seen else Outcome(OutcomeKind.SKIPPED)), result


def _reference_failure(outcome: Outcome, ran: SessionResult) -> Message:
    """Why the reference gave no answer: on a learner's input, the input is the likely
    cause. Its traceback stays here: it would show the reference's code."""
    if outcome.kind is OutcomeKind.SKIPPED:  # it never loaded: the judge's fault, not the input's
        detail = ran.load_error or {}
        startup = ran.startup_failure
        reason = str(detail.get("message", "")) or (startup.message if startup else "")
        raise RuntimeError(f"the reference did not load: {reason}")
    verdict, message = describe_failure(outcome)
    return say("input.reference_failed", verdict=say(f"verdict.{verdict.value}"), reason=message)


def _both(message: Message) -> dict[str, str]:
    return {lang: message.render(lang) for lang in LANGS}


def _case_text(args: object, check: CheckSpec, expected: object) -> str:
    """The input as one case of a public bundle, as JSON text: the browser's judge runs the
    learner's code on it (judge.browser.public_run.run_public_case). Text, not data, so that
    no number passes through JavaScript on its way (1792.0 would come back as 1792)."""
    case = {"name": CUSTOM_CASE, "args": args, "check": check.to_dict(), "expected": expected}
    return json.dumps(case, ensure_ascii=False, allow_nan=False)


def _plain(value: object) -> object:
    """`value` as JSON data the browser's judge decodes (judge.wire.codec), or None for an
    answer with tensors (a torch-tier answer is compared on the server, never sent)."""
    tensors: list[TensorData] = []
    encoded = encode(value, tensors)
    if tensors:
        return None
    json.dumps(encoded, allow_nan=False)  # a canonical answer is always JSON data
    decode(encoded, [])  # and reads back as the browser will read it
    return encoded
