"""Browser-tier problems get the same verdicts under Pyodide as under CPython.

The judge core and each problem's public bundle run inside Pyodide (the `pyodide` npm
package in Node, loaded once per session from tests/problems/node_modules, offline). For
the reference, the starter, every wrong solution and a few broken submissions, the
Pyodide report must match `judge.browser.public_run.run_public` under CPython case by case, and the
CPython browser verdict must match the full local judge (`judge_source`, a child process
per run) wherever the browser can see the failure at all.

A quiz (problems/self-test) is covered the same way with answer sheets: its answer key (as
a sheet), its blank sheet, its known-wrong sheets and broken ones. The browser has no
answers to its number and choice questions, so those cases are not checked there
(verdict None) and only the questions it checks are compared with the local judge.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import judge
from judge.browser.bundle import public_bundle
from judge.browser.public_run import run_public
from judge.grading.report import Report
from judge.kinds.registry import kind_of
from judge.problem.cases import build_cases
from judge.problem.spec import ProblemSpec, load_problem
from judge.run.judge_source import expected_observations, judge_source
from judge.verdict import Verdict

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNNER = HERE / "pyodide_runner.mjs"
PYODIDE = HERE / "node_modules" / "pyodide" / "pyodide.mjs"
NODE_TIMEOUT_S = 300
# The browser does not enforce these limits (the Web Worker is killed instead), so a
# wrong solution declaring one of them cannot be compared with the browser verdict.
LIMIT_VERDICTS = (Verdict.TLE, Verdict.MLE, Verdict.OLE)

# Submissions every browser problem must judge identically in both interpreters.
BROKEN = {
    "broken/syntax-error": "def oops(:\n    pass\n",
    "broken/missing-names": "VALUE = 1\n",
    "broken/raises-on-import": "raise RuntimeError('no luck')\n",
}
# Answer sheets every quiz must judge identically in both interpreters.
BROKEN_SHEETS = {
    "broken/not-json": '{"a": 1,\n "b": }\n',
    "broken/not-an-object": "[1, 2]\n",
    "broken/unknown-question": '{"no-such-question": 1}\n',
    "broken/hostile-answers": None,  # built per quiz: every answer hostile for its type
}
HOSTILE = {
    "number": "1e999",
    "choice": ["a"],
    "choices": ["no-such-option"],
    "expression": "__import__('os').system('id') + 9 ** 9 ** 9",
}


@dataclass(frozen=True, slots=True)
class Submission:
    slug: str
    label: str  # "reference", "starter", "wrong/<file>" or "broken/<what>"
    source: str
    expect: Verdict | None  # the declared verdict of a wrong solution

    @property
    def job_id(self) -> str:
        return f"{self.slug}:{self.label}"


def _browser_problems() -> list[ProblemSpec]:
    folders = sorted(p.parent for p in (ROOT / "problems").glob("*/problem.toml"))
    problems = [load_problem(folder) for folder in folders]
    return [p for p in problems if p.tier == "browser"]


def _submissions(problem: ProblemSpec) -> list[Submission]:
    subs = [
        Submission(problem.slug, "reference", problem.reference_source(), None),
        Submission(problem.slug, "starter", problem.starter_source(), None),
    ]
    for wrong in problem.wrong_solutions():
        source = wrong.path.read_text(encoding="utf-8")
        subs.append(Submission(problem.slug, f"wrong/{wrong.path.name}", source, wrong.expect))
    subs += [Submission(problem.slug, label, src, None) for label, src in BROKEN.items()]
    if problem.quiz is not None:
        hostile = json.dumps({q.id: HOSTILE[q.type.value] for q in problem.quiz.questions})
        for label, sheet in BROKEN_SHEETS.items():
            subs.append(Submission(problem.slug, label, sheet or hostile, None))
    return subs


PROBLEMS = {p.slug: p for p in _browser_problems()}
SUBMISSIONS = [s for p in PROBLEMS.values() for s in _submissions(p)]


def _judge_files() -> dict[str, str]:
    """Every module of the judge package, as Pyodide will import it."""
    package = Path(judge.__file__).resolve().parent
    return {
        f"judge/{path.relative_to(package).as_posix()}": path.read_text(encoding="utf-8")
        for path in sorted(package.rglob("*.py"))
    }


@pytest.fixture(scope="session")
def bundles() -> dict[str, str]:
    """Each problem's public bundle as JSON, built once by CPython."""
    return {slug: json.dumps(public_bundle(p)) for slug, p in PROBLEMS.items()}


@pytest.fixture(scope="session")
def cpython_reports(bundles: dict[str, str]) -> dict[str, dict[str, object]]:
    """The same browser entry point under CPython, once per submission."""
    return {s.job_id: json.loads(run_public(bundles[s.slug], s.source)) for s in SUBMISSIONS}


@pytest.fixture(scope="session")
def expected() -> dict[str, dict[str, object]]:
    """Reference observations on the public seed, per problem, for the local judge."""
    return {
        slug: expected_observations(p, build_cases(p, None))
        for slug, p in PROBLEMS.items()
        if p.quiz is None  # a quiz has no cases to run: its sheets are judged in process
    }


@pytest.fixture(scope="session")
def pyodide_reports(bundles: dict[str, str]) -> dict[str, dict[str, object]]:
    """Run every submission under Pyodide in one Node process (Pyodide loads once)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed; the Pyodide parity test needs Node.js")
    if not PYODIDE.is_file():
        pytest.skip("the pyodide npm package is missing; run `npm ci --prefix tests/problems`")
    request = {
        "files": _judge_files(),
        "call": "judge.browser.public_run:run_public",
        "jobs": [{"id": s.job_id, "args": [bundles[s.slug], s.source]} for s in SUBMISSIONS],
    }
    done = subprocess.run(
        ["node", str(RUNNER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
        cwd=HERE,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"the Pyodide runner failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    answer = json.loads(done.stdout)
    reports: dict[str, dict[str, object]] = {}
    for result in answer["results"]:
        if "error" in result:
            pytest.fail(f"{result['id']}: run_public raised under Pyodide:\n{result['error']}")
        reports[result["id"]] = json.loads(result["value"])
    return reports


def _case_verdicts(report: dict[str, object]) -> list[tuple[str, object]]:
    return [(c["name"], c["verdict"]) for c in report["cases"]]  # type: ignore[attr-defined, index]


def test_browser_problems_are_found() -> None:
    """The parity test is vacuous without browser-tier problems; make that loud."""
    assert PROBLEMS, "no browser-tier problems under problems/"


@pytest.mark.slow
@pytest.mark.parametrize("sub", SUBMISSIONS, ids=lambda s: s.job_id)
def test_pyodide_matches_cpython_case_by_case(
    sub: Submission,
    pyodide_reports: dict[str, dict[str, object]],
    cpython_reports: dict[str, dict[str, object]],
) -> None:
    in_pyodide, in_cpython = pyodide_reports[sub.job_id], cpython_reports[sub.job_id]
    assert in_pyodide["environment"]["python"].startswith("3.14")  # type: ignore[index]
    assert in_pyodide["verdict"] == in_cpython["verdict"]
    assert _case_verdicts(in_pyodide) == _case_verdicts(in_cpython)
    assert _load_failure(in_pyodide) == _load_failure(in_cpython)


def _load_failure(report: dict[str, object]) -> tuple[object, object] | None:
    """Kind and line of a load error; the wording may differ between Python versions."""
    error = report.get("compile_error")
    return None if error is None else (error["kind"], error["line"])  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.parametrize("sub", SUBMISSIONS, ids=lambda s: s.job_id)
def test_browser_verdict_matches_the_local_judge(
    sub: Submission,
    cpython_reports: dict[str, dict[str, object]],
    expected: dict[str, dict[str, object]],
) -> None:
    """Same public cases (the public seed), so the same verdict, except for limits."""
    if sub.expect in LIMIT_VERDICTS:
        pytest.skip(
            f"{sub.label} declares {sub.expect.value}, a limit the browser does not enforce"
        )
    problem = PROBLEMS[sub.slug]
    if problem.quiz is not None:
        _quiz_verdicts_agree(
            sub, kind_of(problem).judge(problem, sub.source), cpython_reports[sub.job_id]
        )
        return
    local = judge_source(problem, sub.source, expected=expected[sub.slug])
    assert cpython_reports[sub.job_id]["verdict"] == local.verdict.value
    if sub.label == "reference":
        assert local.verdict is Verdict.AC
    elif sub.expect is not None:
        assert local.verdict is sub.expect
    else:
        assert local.verdict is not Verdict.AC


def _quiz_verdicts_agree(sub: Submission, local: Report, browser: dict[str, object]) -> None:
    """Every question the browser checks gets the local verdict (an expression may still
    fail at the judge's hidden points, which the browser never sees); where the browser
    checked every question that failed locally, the overall verdict is the same too."""
    seen = {c["name"]: c["verdict"] for c in browser["cases"]}  # type: ignore[attr-defined]
    hidden_only = {
        c.name
        for c in local.cases
        if c.verdict is Verdict.WA and c.message.endswith("at a point the judge chose")
    }
    for result in local.cases:
        if seen[result.name] is not None and result.name not in hidden_only:
            assert seen[result.name] == result.verdict.value, result.name  # type: ignore[union-attr]
    failing = [c.name for c in local.cases if c.verdict is not Verdict.AC]
    if all(seen[name] not in (None, "AC") for name in failing):
        assert browser["verdict"] == local.verdict.value
    if sub.label == "reference":
        assert local.verdict is Verdict.AC
    elif sub.expect is not None:
        assert local.verdict is sub.expect
    else:
        assert local.verdict is not Verdict.AC
