"""`judge check`: a problem proves itself before learners see it.

The reference is accepted on every case (public seed and two other seeds), the starter
is not, every wrong solution gets exactly the verdict it declares, and two runs of the
reference give identical observations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from judge.cases import PUBLIC_SEED, build_cases
from judge.errors import JudgeError
from judge.judging import expected_observations, judge_source
from judge.render import table
from judge.spec import ProblemSpec
from judge.tensor import TensorData
from judge.verdict import Verdict
from judge.wire import encode

EXTRA_SEEDS = (1, 2)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(slots=True)
class ProblemCheck:
    slug: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def to_dict(self) -> dict[str, object]:
        return {
            "problem": self.slug,
            "ok": self.ok,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
        }


def check_problem(problem: ProblemSpec) -> ProblemCheck:
    result = ProblemCheck(problem.slug)
    try:
        _run_checks(problem, result.checks)
    except JudgeError as exc:
        result.checks.append(Check("problem loads", False, str(exc)))
    return result


def _run_checks(problem: ProblemSpec, checks: list[Check]) -> None:
    for seed in (PUBLIC_SEED, *EXTRA_SEEDS):
        report = judge_source(problem, problem.reference_source(), seed=seed)
        detail = f"{report.passed}/{len(report.cases)} cases" + _why(report)
        checks.append(Check(f"reference AC (seed {seed})", report.verdict is Verdict.AC, detail))
    starter = judge_source(problem, problem.starter_source())
    checks.append(
        Check(
            "starter not AC",
            starter.verdict not in (Verdict.AC, Verdict.IE),
            starter.verdict.value + _why(starter),
        )
    )
    wrong = problem.wrong_solutions()
    if len(wrong) < 2:
        checks.append(
            Check(
                "wrong solutions",
                False,
                f"{len(wrong)} in solutions/wrong/; at least 2 are required",
            )
        )
    for solution in wrong:
        report = judge_source(problem, solution.path.read_text(encoding="utf-8"))
        name = f"{solution.path.name} gets {solution.expect.value}"
        checks.append(
            Check(
                name,
                report.verdict is solution.expect,
                f"got {report.verdict.value}" + _why(report),
            )
        )
    checks.append(_determinism(problem))


def _determinism(problem: ProblemSpec) -> Check:
    runs = []
    for _ in range(2):
        cases = build_cases(problem, PUBLIC_SEED)
        expected = expected_observations(problem, cases)
        tensors: list[TensorData] = []
        blob = json.dumps(
            encode([[c.name, c.args, expected[c.name]] for c in cases], tensors), sort_keys=True
        )
        runs.append((blob, [t.data for t in tensors]))
    same = runs[0] == runs[1]
    return Check(
        "reference deterministic", same, "identical observations" if same else "two runs differ"
    )


def _why(report: object) -> str:
    from judge.report import Report

    assert isinstance(report, Report)
    if report.internal_error:
        return " — " + report.internal_error.strip().splitlines()[-1]
    if report.compile_error:
        return f" — {report.compile_error.get('message')}"
    failure = report.first_failure
    return f" — {failure.name}: {failure.message}" if failure else ""


def print_checks(results: list[ProblemCheck]) -> None:
    rows = []
    for result in results:
        for check in result.checks:
            rows.append([result.slug, "ok" if check.ok else "FAIL", check.name, check.detail[:90]])
    print(table(("problem", "", "check", "detail"), rows))
    bad = [r.slug for r in results if not r.ok]
    print(
        f"\n{len(results) - len(bad)}/{len(results)} problems pass"
        + (f"; failing: {', '.join(bad)}" if bad else "")
    )
