"""Judging in the learner's browser (Pyodide): the public cases, in this very process.

Nothing here is a security boundary: the page is the learner's own. Only server verdicts
count. The Web Worker that calls run_public enforces the time limit by terminating itself
or raising KeyboardInterrupt, which is let through.
"""

from __future__ import annotations

import io
import json
import sys
import time
import types
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from judge.errors import SourceError
from judge.grading.case_grading import grade
from judge.grading.outcome import Outcome, OutcomeKind
from judge.grading.quiz_grading import PublicQuestion, judge_public_answers
from judge.grading.report import CaseResult, Report
from judge.messages import load_error_said
from judge.pictures.reproduce import Reproducer
from judge.problem.cases import Case
from judge.problem.checkers import CheckSpec
from judge.problem.spec import ProblemKind
from judge.record import record, replace
from judge.run.child import error_answer, load_submission
from judge.run.source_check import validate_source
from judge.textcap import bounded
from judge.verdict import Verdict, overall
from judge.wire.codec import ObservationTypeError, decode, normalize

OUTPUT_CAP = 64 * 1024  # characters of each stream a report keeps, per case and in all


@record
class PreparedCase:
    case: Case
    expected: object  # the encoded (JSON) form from the bundle
    expected_text: str  # canonical JSON text, for the fast path


@record
class PreparedBundle:
    slug: str
    version: str
    names: tuple[str, ...]
    driver: str
    cases: tuple[PreparedCase, ...]


@record
class PreparedQuiz:
    """A quiz bundle: its questions, with expected values at public points only."""

    slug: str
    version: str
    questions: tuple[PublicQuestion, ...]


_last: tuple[str, PreparedBundle | PreparedQuiz] | None = None  # one problem, many runs


def preload_failure_reports() -> None:
    """Import now what a failing public case's report imports the first time a case fails
    (its input, picture, value diff and reproducing test). The browser's worker calls this
    before Python's snapshot is taken, so a page's first Run finds them loaded (about 0.2 s
    of it in Chromium); `judge run` still imports them only when a case fails."""
    import pprint  # noqa: F401

    from judge.pictures import case_input, case_pictures, reproduce, value_diff  # noqa: F401


def run_public(bundle_json: str, source: str) -> str:
    """Judge `source` on a public bundle (JSON text); returns the report as JSON text."""
    return json.dumps(judge_prepared(_prepared(bundle_json), source).to_dict())


def run_public_case(bundle_json: str, source: str, case_json: str) -> str:
    """Judge `source` on one case given apart from the bundle (JSON text: name, args, check,
    expected), the bundle's driver and names kept: "Try your own input", its expected answer
    the reference's on the server. Returns the report as JSON text."""
    bundle = _prepared(bundle_json)
    if isinstance(bundle, PreparedQuiz):
        raise ValueError(f"{bundle.slug} is a quiz: it has no cases to run")
    one = replace(bundle, cases=(_prepared_case(json.loads(case_json)),))
    return json.dumps(judge_prepared(one, source).to_dict())


def _prepared(bundle_json: str) -> PreparedBundle | PreparedQuiz:
    global _last
    if _last is None or _last[0] != bundle_json:
        _last = (bundle_json, prepare(json.loads(bundle_json)))
    return _last[1]


def judge_bundle(bundle: dict[str, object], source: str) -> Report:
    return judge_prepared(prepare(bundle), source)


def prepare(bundle: dict[str, object]) -> PreparedBundle | PreparedQuiz:
    problem: dict[str, object] = bundle["problem"]  # type: ignore[assignment]
    if bundle.get("kind") == ProblemKind.QUIZ.value:
        questions = tuple(PublicQuestion.from_bundle(q) for q in bundle["questions"])  # type: ignore[attr-defined]
        return PreparedQuiz(str(problem["slug"]), str(problem["version"]), questions)
    cases = [_prepared_case(item) for item in bundle["cases"]]  # type: ignore[attr-defined]
    return PreparedBundle(
        slug=str(problem["slug"]),
        version=str(problem["version"]),
        names=tuple(str(n) for n in problem["names"]),  # type: ignore[attr-defined]
        driver=str(bundle["driver"]),
        cases=tuple(cases),
    )


def _prepared_case(item: dict[str, Any]) -> PreparedCase:
    check = dict(item["check"])
    check["unchecked"] = tuple(check.get("unchecked", ()))  # a list in JSON
    case = Case(str(item["name"]), item["args"], CheckSpec(**check), public=True)
    return PreparedCase(case, item["expected"], _json_text(item["expected"]) or "")


def judge_prepared(bundle: PreparedBundle | PreparedQuiz, source: str) -> Report:
    try:
        source = validate_source(source)
    except SourceError as exc:
        error: dict[str, object] = {"kind": "source", "line": None, "message": str(exc)}
        return _report(bundle, Verdict.CE, (), error)
    if isinstance(bundle, PreparedQuiz):
        outcome = judge_public_answers(bundle.questions, source)
        return _report(
            bundle, outcome.verdict, outcome.cases, outcome.compile_error, time_ms=outcome.time_ms
        )
    out, err = _Output(), _Output()
    start = time.perf_counter()
    reproducer = Reproducer(bundle.slug, bundle.driver)
    with redirect_stdout(out), redirect_stderr(err):
        driver = types.ModuleType("cases")
        exec(compile(bundle.driver, "cases.py", "exec"), driver.__dict__)
        sub, load_error = load_submission(source, list(bundle.names))
        results = (
            ()
            if sub is None
            else tuple(_run(driver, sub, c, (out, err), reproducer) for c in bundle.cases)
        )
    sys.modules.pop("submission", None)
    elapsed = (time.perf_counter() - start) * 1000
    output = (out.getvalue(), err.getvalue(), elapsed)
    if load_error is not None:
        load_error = load_error_said(load_error)
        load_error.pop("type", None)
        verdict = Verdict.RE if load_error["kind"] == "exception" else Verdict.CE
        return _report(bundle, verdict, (), load_error, *output)
    verdict = overall([r.verdict for r in results if r.verdict is not None])
    return _report(bundle, verdict, results, None, *output)


class _Output(io.StringIO):
    """A stream's whole text, and apart from it what is written while one case runs."""

    def __init__(self) -> None:
        super().__init__()
        self.case: list[str] | None = None

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.case is not None:
            self.case.append(text)
        return written

    def open_case(self) -> None:
        self.case = []

    def close_case(self) -> str:
        parts, self.case = self.case or [], None
        return bounded("".join(parts), OUTPUT_CAP)


def _run(
    driver: types.ModuleType,
    sub: types.ModuleType,
    prepared: PreparedCase,
    streams: tuple[_Output, _Output],
    reproducer: Reproducer,
) -> CaseResult:
    """One case, with what it printed kept apart from the other cases' output."""
    for stream in streams:
        stream.open_case()
    try:
        outcome = _outcome(driver, sub, prepared)
    finally:
        stdout, stderr = (stream.close_case() for stream in streams)
    outcome = outcome.with_output(stdout, stderr)
    if outcome.kind is OutcomeKind.RESULT and outcome.observation is _IDENTICAL:
        return CaseResult(prepared.case.name, True, Verdict.AC, outcome.time_ms,
                          stdout=stdout, stderr=stderr)  # fmt: skip
    return grade(prepared.case, outcome, decode(prepared.expected, []), reproducer)


_IDENTICAL = object()  # the observation of an answer identical to the expected one


def _outcome(driver: types.ModuleType, sub: types.ModuleType, prepared: PreparedCase) -> Outcome:
    case = prepared.case
    t0 = time.perf_counter()
    try:
        value = driver.run(sub, case.args)
    except KeyboardInterrupt:
        raise  # the page's Stop button interrupts the worker this way
    except BaseException as exc:  # noqa: BLE001 - the learner's exception is a result, not a crash
        return _error_outcome(case, exc, t0, driver.run)
    elapsed = (time.perf_counter() - t0) * 1000
    if _json_text(value) == prepared.expected_text and _plain(value):  # the fast path
        return Outcome(OutcomeKind.RESULT, elapsed, observation=_IDENTICAL)
    try:
        return Outcome(OutcomeKind.RESULT, elapsed, observation=normalize(value))
    except ObservationTypeError as exc:
        return Outcome(OutcomeKind.BAD_OBSERVATION, elapsed, message=str(exc))


def _error_outcome(case: Case, exc: BaseException, t0: float, run: object) -> Outcome:
    info = error_answer(case.name, exc, run)
    line, step = info["line"], info.get("step")
    return Outcome(
        OutcomeKind.ERROR,
        (time.perf_counter() - t0) * 1000,
        message=str(info["message"]),
        exception=str(info["exception"]),
        line=line if isinstance(line, int) else None,
        traceback=str(info["traceback"]),
        step=step if isinstance(step, int) else None,
    )


def _json_text(value: object) -> str | None:
    """Canonical JSON text, or None where JSON cannot say it exactly (NaN, tensors, sets...)."""
    try:
        return json.dumps(value, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


_PLAIN_LEAVES = frozenset({type(None), bool, int, float, str})


def _plain(value: object) -> bool:
    """Only exact JSON types, as the server's wire format requires.

    json.dumps writes an IntEnum or any other int/str/float subclass as its base value, so
    equal JSON text alone would pass in the browser what the server rejects.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN_LEAVES:
            continue
        if kind is list or kind is tuple:
            stack.extend(item)  # type: ignore[arg-type]
        elif kind is dict:
            if any(type(key) is not str for key in item):  # type: ignore[attr-defined]
                return False
            stack.extend(item.values())  # type: ignore[attr-defined]
        else:
            return False
    return True


def _report(
    bundle: PreparedBundle | PreparedQuiz,
    verdict: Verdict,
    cases: tuple[CaseResult, ...],
    compile_error: dict[str, object] | None,
    stdout: str = "",
    stderr: str = "",
    time_ms: float = 0.0,
) -> Report:
    return Report(
        problem=bundle.slug,
        version=bundle.version,
        verdict=verdict,
        score=0,  # browser results are practice feedback; only server verdicts score
        cases=cases,
        time_ms=time_ms,
        compile_error=compile_error,
        stdout=bounded(stdout, OUTPUT_CAP),
        stderr=bounded(stderr, OUTPUT_CAP),
        seed="public",
        environment={
            "launcher": "browser",
            "python": sys.version.split()[0],
            "platform": sys.platform,
        },
    )
