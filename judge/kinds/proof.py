"""What `judge check` proves of a problem, whatever its kind: one check's value, and where a
run first failed compared with where a known-bad submission declares it fails."""

from __future__ import annotations

import re

from judge.grading.report import Report
from judge.problem.wrong_solution import FirstFailure, WrongSolution
from judge.record import record
from judge.verdict import Verdict

EXTRA_SEEDS = (1, 2)  # the seeds a right submission is judged on besides the public one


@record
class Check:
    name: str
    ok: bool
    detail: str
    declared: str = ""  # what a wrong solution's header says, for the checks on one
    actual: str = ""  # what happened, in the same words

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "ok": self.ok, "detail": self.detail}
        if self.declared:
            out["declared"], out["actual"] = self.declared, self.actual
        return out


def fails_where_declared(solution: WrongSolution, report: Report, expect_key: str) -> Check:
    """The run's verdict, first failing case and step are the ones the header declares;
    `expect_key` is how the kind writes a declaration (`expect: `, `_expect: `)."""
    declared = solution.first_failure
    got = first_failure(report)
    ok = report.verdict is declared.verdict and got is not None and declared.admits(got)
    actual = Verdict.AC.value if got is None else str(got)
    if got is not None and got.verdict is not report.verdict:
        actual += f" ({report.verdict.value} overall)"
    return Check(
        f"{solution.path.name} fails as declared",
        ok,
        actual if ok else f"declared {declared}, got {actual}" + why(report),
        f"{expect_key}{declared}",
        f"{expect_key}{actual}",
    )


def first_failure(report: Report) -> FirstFailure | None:
    """Where a run first failed (None: accepted); the step is read from the checker's message."""
    if report.verdict is Verdict.AC:
        return None
    case = report.first_failure
    if case is None or case.verdict is None:
        return FirstFailure(report.verdict)  # failed to load, or the judge failed: no case ran
    step = _STEP_RE.match(case.message) if case.verdict is Verdict.WA else None
    if step is None:
        return FirstFailure(case.verdict, case.name)
    return FirstFailure(case.verdict, case.name, int(step.group(1)), step.group(2))


# A trace's mismatch starts with the step label judge.problem.checkers gives it, "step 17 (OP)",
# then " at PATH" or ": REASON"; the shortest OP that is followed by one of them.
_STEP_RE = re.compile(r"^step (\d+) \((.+?)\)(?: at |: )")


def why(report: Report) -> str:
    """Why a run is what it is, in a few words after a dash ("" when there is nothing to say)."""
    if report.internal_error:
        return " — " + report.internal_error.strip().splitlines()[-1]
    if report.compile_error:
        return f" — {report.compile_error.get('message')}"
    failure = report.first_failure
    return f" — {failure.name}: {failure.message}" if failure else ""
