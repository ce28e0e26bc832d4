"""Judging in the learner's browser (Pyodide): the public cases, in this very process.

Nothing here is a security boundary: the page is the learner's own. Only server verdicts
count. The Web Worker that calls run_public enforces the time limit by terminating itself.
"""

from __future__ import annotations

import io
import json
import sys
import time
import types
from contextlib import redirect_stderr, redirect_stdout

from judge.cases import Case
from judge.checkers import CheckSpec
from judge.child import _error, load_submission
from judge.errors import SourceError
from judge.grading import grade
from judge.outcome import Outcome
from judge.report import CaseResult, Report
from judge.source import validate_source
from judge.tensor import TensorData
from judge.verdict import Verdict, overall
from judge.wire import ObservationTypeError, decode, encode

OUTPUT_CAP = 64 * 1024


def run_public(bundle_json: str, source: str) -> str:
    """Judge `source` on a public bundle; returns the report as JSON."""
    bundle = json.loads(bundle_json)
    return json.dumps(judge_bundle(bundle, source).to_dict())


def judge_bundle(bundle: dict[str, object], source: str) -> Report:
    problem = bundle["problem"]
    slug, version = str(problem["slug"]), str(problem["version"])  # type: ignore[index]
    try:
        source = validate_source(source)
    except SourceError as exc:
        return _report(
            slug, version, Verdict.CE, (), {"kind": "source", "line": None, "message": str(exc)}
        )
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(err):
        driver = types.ModuleType("cases")
        exec(compile(str(bundle["driver"]), "cases.py", "exec"), driver.__dict__)
        sub, load_error = load_submission(source, list(problem["names"]))  # type: ignore[index]
        results = () if sub is None else tuple(_run(driver, sub, c) for c in bundle["cases"])  # type: ignore[attr-defined]
    sys.modules.pop("submission", None)
    elapsed = (time.perf_counter() - start) * 1000
    if load_error is not None:
        load_error.pop("type", None)
        verdict = Verdict.RE if load_error["kind"] == "exception" else Verdict.CE
        return _report(
            slug, version, verdict, (), load_error, out.getvalue(), err.getvalue(), elapsed
        )
    verdict = overall([r.verdict for r in results if r.verdict is not None])
    return _report(slug, version, verdict, results, None, out.getvalue(), err.getvalue(), elapsed)


def _run(driver: types.ModuleType, sub: types.ModuleType, item: dict[str, object]) -> CaseResult:
    case = Case(str(item["name"]), item["args"], CheckSpec(**item["check"]), public=True)  # type: ignore[arg-type]
    expected = decode(item["expected"], [])
    t0 = time.perf_counter()
    try:
        value = driver.run(sub, case.args)
        tensors: list[TensorData] = []
        observation = decode(encode(value, tensors), tensors)
        outcome = Outcome("result", observation=observation)
    except ObservationTypeError as exc:
        outcome = Outcome("bad_observation", message=str(exc))
    except KeyboardInterrupt:
        raise  # the page's Stop button interrupts the worker this way
    except BaseException as exc:  # noqa: BLE001 - the learner's exception is a result, not a crash
        info = _error(case.name, exc)
        outcome = Outcome(
            "error",
            message=str(info["message"]),
            exception=str(info["exception"]),
            line=info["line"] if isinstance(info["line"], int) else None,
            traceback=str(info["traceback"]),
        )
    elapsed = (time.perf_counter() - t0) * 1000
    return grade(
        case,
        Outcome(
            outcome.kind,
            elapsed,
            outcome.observation,
            outcome.message,
            outcome.exception,
            outcome.line,
            outcome.traceback,
        ),
        expected,
    )


def _report(
    slug: str,
    version: str,
    verdict: Verdict,
    cases: tuple[CaseResult, ...],
    compile_error: dict[str, object] | None,
    stdout: str = "",
    stderr: str = "",
    time_ms: float = 0.0,
) -> Report:
    return Report(
        problem=slug,
        version=version,
        verdict=verdict,
        score=0,  # browser results are practice feedback; only server verdicts score
        cases=cases,
        time_ms=time_ms,
        compile_error=compile_error,
        stdout=stdout[:OUTPUT_CAP],
        stderr=stderr[:OUTPUT_CAP],
        seed="public",
        environment={
            "launcher": "browser",
            "python": sys.version.split()[0],
            "platform": sys.platform,
        },
    )
