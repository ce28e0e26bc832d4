"""`judge check`: a problem proves itself before learners see it.

The reference is accepted on every case (public seed and two other seeds), the starter
is not, every wrong solution fails exactly where its header declares (verdict, first
failing case, and step of a trace) and differs from the reference by no more lines than
it declares, every solutions/accepted/*.py (another right solution: slower, or another
layout) is accepted, and two runs of the reference give identical observations. difflib is
imported here only: `judge check` loads this module, `judge run` never does.

A quiz proves itself the same way with answer sheets: answers.toml answers every question
and no other, its own answers (`reference_source()`) are AC on the three seeds, the blank
sheet and an empty one (`{}`) are not, and every solutions/wrong/*.json sheet fails where
its "_expect" key declares.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field

from judge.commands.render import table
from judge.errors import JudgeError
from judge.grading.report import Report
from judge.messages import say
from judge.problem.cases import PUBLIC_SEED, build_cases
from judge.problem.limits import CpuAllowance
from judge.problem.spec import ProblemKind, ProblemSpec
from judge.problem.wrong_solution import FirstFailure, WrongSolution
from judge.quiz.questions import Quiz
from judge.run.judge_source import TrustedInputs, expected_observations, judge_source
from judge.verdict import Verdict
from judge.wire.codec import encode
from judge.wire.tensor import TensorData

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher

EXTRA_SEEDS = (1, 2)


@dataclass(frozen=True, slots=True)
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
            "checks": [c.to_dict() for c in self.checks],
        }


def check_problem(problem: ProblemSpec, launcher: Launcher | None = None) -> ProblemCheck:
    """Every check of one problem; its runs in children of `launcher` (`check --sandbox`:
    the server's sandbox), else in plain local children."""
    result = ProblemCheck(problem.slug)
    try:
        _run_checks(problem, result.checks, launcher)
    except JudgeError as exc:
        result.checks.append(Check("problem loads", False, str(exc)))
    return result


class _Trusted:
    """The trusted side of every run of one check: the cases and their expected answers are
    computed once per seed and shared by every solution judged on it (a torch problem's
    reference costs as much as a submission); a calibrated case's CPU allowance once per
    case name, as the server's runner keeps it (runner/refcache.py: such a case has one
    shape on every seed)."""

    def __init__(self, problem: ProblemSpec, launcher: Launcher | None) -> None:
        self.problem, self.launcher = problem, launcher
        self._memo: dict[int, TrustedInputs] = {}
        self._allowances: dict[str, CpuAllowance] = {}
        self._counted = True  # False once a launcher could not count a child's CPU time

    def judge(self, source: str, seed: int = PUBLIC_SEED) -> Report:
        got = self._inputs(seed)
        return judge_source(
            self.problem, source, seed=seed, launcher=self.launcher,
            cases=got.cases, expected=got.expected, budget=got.budget, cpu=got.cpu,
        )  # fmt: skip

    def _inputs(self, seed: int) -> TrustedInputs:
        if seed not in self._memo:
            try:
                self._memo[seed] = self._compute(seed)
            except Exception:  # noqa: BLE001 - judge_source computes them again and says IE
                self._memo[seed] = TrustedInputs()
        return self._memo[seed]

    def _compute(self, seed: int) -> TrustedInputs:
        from judge.run.budget import budget_for
        from judge.run.calibration import calibrate
        from judge.run.judge_source import load_message
        from judge.run.launch import LocalLauncher
        from judge.run.workdir import WorkDir

        problem = self.problem
        cases = build_cases(problem, seed)
        expected = expected_observations(problem, cases)
        got = TrustedInputs(cases, expected, budget_for(expected))
        if problem.cpu_rule is None:
            return got
        missing = [c for c in cases if c.calibrated and c.name not in self._allowances]
        if missing and self._counted:
            load = load_message(problem, problem.reference_source())
            if self.launcher is not None:
                measured = calibrate(problem, missing, self.launcher, problem.limits, load)
            else:
                with WorkDir() as workdir:
                    local = LocalLauncher(workdir.path)
                    measured = calibrate(problem, missing, local, problem.limits, load)
            if measured is None:
                self._counted = False
            else:
                self._allowances.update(measured)
        if self._counted:
            got.cpu = {c.name: self._allowances[c.name] for c in cases if c.calibrated}
        return got

    def public_inputs(self) -> TrustedInputs:
        """The public seed's inputs as the check computed them (empty if that failed)."""
        return self._inputs(PUBLIC_SEED)


def _run_checks(problem: ProblemSpec, checks: list[Check], launcher: Launcher | None) -> None:
    if problem.quiz is not None:
        _quiz_checks(problem, problem.quiz, checks)
        return
    trusted = _Trusted(problem, launcher)
    for seed in (PUBLIC_SEED, *EXTRA_SEEDS):
        report = trusted.judge(problem.reference_source(), seed)
        detail = f"{report.passed}/{len(report.cases)} cases" + _why(report)
        checks.append(Check(f"reference AC (seed {seed})", report.verdict is Verdict.AC, detail))
    starter = trusted.judge(problem.starter_source())
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
    reference = problem.reference_source()
    for solution in wrong:
        source = solution.path.read_text(encoding="utf-8")
        checks.append(_fails_where_declared(problem, solution, trusted.judge(source)))
        checks.append(_diff_within_declared(solution, reference, source))
    for path in problem.accepted_solutions():  # right in another way: never refused
        report = trusted.judge(path.read_text(encoding="utf-8"))
        detail = f"{report.passed}/{len(report.cases)} cases" + _why(report)
        checks.append(Check(f"{path.name} AC", report.verdict is Verdict.AC, detail))
    checks.append(_determinism(problem, trusted.public_inputs()))


def _quiz_checks(problem: ProblemSpec, quiz: Quiz, checks: list[Check]) -> None:
    missing = [q.id for q in quiz.questions if q.id not in quiz.keys]
    checks.append(
        Check(
            "answers.toml answers every question",
            not missing,
            f"{len(quiz.keys)}/{len(quiz.questions)} questions"
            + (f" — no answer for {', '.join(missing)}" if missing else ""),
        )
    )
    if missing:
        return  # every other check would be the judge failing (IE) on those questions
    for seed in (PUBLIC_SEED, *EXTRA_SEEDS):
        report = judge_source(problem, problem.reference_source(), seed=seed)
        detail = f"{report.passed}/{len(report.cases)} questions" + _why(report)
        checks.append(Check(f"answer key AC (seed {seed})", report.verdict is Verdict.AC, detail))
    for name, sheet in (("blank sheet", problem.starter_source()), ("empty sheet", "{}")):
        report = judge_source(problem, sheet)
        ok = report.verdict not in (Verdict.AC, Verdict.IE)
        checks.append(Check(f"{name} not AC", ok, report.verdict.value + _why(report)))
    wrong = problem.wrong_solutions()
    if len(wrong) < 2:
        checks.append(
            Check(
                "wrong sheets", False, f"{len(wrong)} in solutions/wrong/; at least 2 are required"
            )
        )
    for solution in wrong:
        source = solution.path.read_text(encoding="utf-8")
        checks.append(_fails_where_declared(problem, solution, judge_source(problem, source)))


def _fails_where_declared(problem: ProblemSpec, solution: WrongSolution, report: Report) -> Check:
    """The run's verdict, first failing case and step are the ones the header declares."""
    declared = solution.first_failure
    got = first_failure(report)
    ok = report.verdict is declared.verdict and got is not None and declared.admits(got)
    actual = Verdict.AC.value if got is None else str(got)
    if got is not None and got.verdict is not report.verdict:
        actual += f" ({report.verdict.value} overall)"
    return Check(
        f"{solution.path.name} fails as declared",
        ok,
        actual if ok else f"declared {declared}, got {actual}" + _why(report),
        f"{_EXPECT_KEY[problem.kind]}{declared}",
        f"{_EXPECT_KEY[problem.kind]}{actual}",
    )


# How a declaration is written: a code solution's header line, a quiz sheet's key.
_EXPECT_KEY = {ProblemKind.CODE: "expect: ", ProblemKind.QUIZ: "_expect: "}


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


def _diff_within_declared(solution: WrongSolution, reference: str, source: str) -> Check:
    """The wrong solution is reference.py plus its bug: no more lines than it declares."""
    size, first = diff_size(reference, source)
    ok = solution.differs is not None and size <= solution.differs
    detail = f"{_lines(size)} of code differ from reference.py"
    if not ok:
        detail += f", more than the {solution.differs} declared; first: {first}"
    return Check(
        f"{solution.path.name} differs as declared",
        ok,
        detail,
        f"differs: {_lines(solution.differs or 0)}",
        f"differs: {_lines(size)}",
    )


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def diff_size(reference: str, wrong: str) -> tuple[int, str]:
    """Lines of code that differ (a changed, added or removed line counts once each; blank
    and comment-only lines are not code), and the first differing line of `wrong`."""
    ref, bad = _code_lines(reference), _code_lines(wrong)
    size, first = 0, ""
    matcher = difflib.SequenceMatcher(None, [t for _, t in ref], [t for _, t in bad], False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        size += max(i2 - i1, j2 - j1)
        if not first and j1 < j2:
            first = f"line {bad[j1][0]}: {bad[j1][1].strip()}"
        elif not first:
            first = f"reference.py line {ref[i1][0]} removed: {ref[i1][1].strip()}"
    return size, first


def _code_lines(source: str) -> list[tuple[int, str]]:
    """(line number, text) of every line that is neither blank nor only a comment."""
    return [
        (number, line.rstrip())
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _determinism(problem: ProblemSpec, first: TrustedInputs) -> Check:
    """The public seed's cases and expected answers come out the same twice: the check's own
    computation of them (`first`, when it succeeded), then a fresh one."""
    runs = []
    for round_ in range(2):
        if round_ == 0 and first.cases is not None and first.expected is not None:
            cases, expected = first.cases, first.expected
        else:
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


def _why(report: Report) -> str:
    if report.internal_error:
        return " — " + report.internal_error.strip().splitlines()[-1]
    if report.compile_error:
        return f" — {report.compile_error.get('message')}"
    failure = report.first_failure
    return f" — {failure.name}: {failure.message}" if failure else ""


def print_checks(results: list[ProblemCheck], lang: str = "en") -> None:
    """The checks as a table and a summary line in `lang`; a check's name and detail are
    the author's English (they quote files and verdicts), as --json carries them."""
    ok, fail = say("cli.check_ok").render(lang), say("cli.check_fail").render(lang)
    rows = []
    for result in results:
        for check in result.checks:
            rows.append([result.slug, ok if check.ok else fail, check.name, check.detail])
    print(table(say("cli.check_header").render(lang).split("|"), rows))
    bad = [r.slug for r in results if not r.ok]
    passed = len(results) - len(bad)
    summary = say("cli.check_summary", passed=passed, total=len(results)).render(lang)
    if bad:
        summary += say("cli.check_failing", slugs=", ".join(bad)).render(lang)
    print(f"\n{summary}")
