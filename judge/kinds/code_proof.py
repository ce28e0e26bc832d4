"""`judge check` on a code problem: the proofs that it is sound before learners see it.

The reference is accepted on every case (public seed and two other seeds), the starter
is not, every wrong solution fails exactly where its header declares (verdict, first
failing case, and step of a trace; it is run up to that case and no further) and differs
from the reference by no more lines than it declares, every solutions/accepted/*.py
(another right solution: slower, or another layout) is accepted, and two runs of the
reference give identical observations. A speed problem's timed cases are run and checked
like any case, but not paced (the reference is not timed beside each one): a check proves
verdicts, and a score's pairing is the pacer's own tests' business. difflib is imported
only when a wrong solution's diff is measured, never on `judge run`'s path.
"""

from __future__ import annotations

import json

from judge.grading.report import Report
from judge.kinds.proof import EXTRA_SEEDS, Check, fails_where_declared, why
from judge.problem.cases import PUBLIC_SEED, Case, build_cases
from judge.problem.limits import CpuAllowance
from judge.problem.spec import ProblemSpec
from judge.problem.wrong_solution import WrongSolution
from judge.run import judge_source as judging
from judge.run.judge_source import TrustedInputs, judge_source, run_reference
from judge.verdict import Verdict
from judge.wire.codec import encode
from judge.wire.tensor import TensorData

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher


def prove_code(
    problem: ProblemSpec, launcher: Launcher | None, expect_key: str, checks: list[Check]
) -> None:
    """A code problem's checks, appended to `checks`; its runs in children of `launcher`
    (`check --sandbox`: the server's sandbox), else in plain local children."""
    trusted = _Trusted(problem, launcher)
    observed: dict[str, object] = {}  # the reference's own run on the public seed
    for seed in (PUBLIC_SEED, *EXTRA_SEEDS):
        keep = observed if seed == PUBLIC_SEED else None
        report = trusted.judge(problem.reference_source(), seed, observed=keep)
        detail = f"{report.passed}/{len(report.cases)} cases" + why(report)
        checks.append(Check(f"reference AC (seed {seed})", report.verdict is Verdict.AC, detail))
    starter = trusted.judge(problem.starter_source())
    checks.append(
        Check(
            "starter not AC",
            starter.verdict not in (Verdict.AC, Verdict.IE),
            starter.verdict.value + why(starter),
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
        checks.append(_fails_where_declared(trusted, solution, source, expect_key))
        checks.append(_diff_within_declared(solution, reference, source))
    for path in problem.accepted_solutions():  # right in another way: never refused
        report = trusted.judge(path.read_text(encoding="utf-8"))
        detail = f"{report.passed}/{len(report.cases)} cases" + why(report)
        checks.append(Check(f"{path.name} AC", report.verdict is Verdict.AC, detail))
    checks.append(_determinism(problem, trusted.public_inputs(), observed))


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

    def judge(
        self,
        source: str,
        seed: int = PUBLIC_SEED,
        through: int | None = None,
        observed: dict[str, object] | None = None,
    ) -> Report:
        """`source` judged on `seed`'s cases, or on its first `through` cases only; each
        case's observation into `observed` when given."""
        got = self._inputs(seed)
        cases = got.cases if got.cases is None or through is None else got.cases[:through]
        return judge_source(
            self.problem, source, seed=seed, launcher=self.launcher, pace=False,
            cases=cases, expected=got.expected, budget=got.budget, cpu=got.cpu,
            observed=observed,
        )  # fmt: skip

    def public_case_names(self) -> list[str] | None:
        """The public seed's cases in order (None when they could not be built)."""
        cases = self._inputs(PUBLIC_SEED).cases
        return None if cases is None else [case.name for case in cases]

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
        from judge.run.launch import LocalLauncher
        from judge.run.load_message import load_message
        from judge.run.workdir import WorkDir

        problem = self.problem
        cases = build_cases(problem, seed)
        expected = judging.expected_observations(problem, cases)
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


def _fails_where_declared(
    trusted: _Trusted, solution: WrongSolution, source: str, expect_key: str
) -> Check:
    """The wrong solution run up to and including the case its header names, and no further:
    whether it fails there is settled by then, and what a wrong solution does after its
    first failure proves nothing (a torch problem's later cases, its timed repetitions, cost
    as much as a submission). A declared case the public seed does not have fails the check:
    no run could fail there, and the check could not stop early."""
    declared = solution.first_failure
    names = trusted.public_case_names()
    if names is None:  # the cases could not be built: the full run says IE, and why
        return fails_where_declared(solution, trusted.judge(source), expect_key)
    if declared.case is None:
        through = 1  # at load: nothing runs past the first request either way
    elif declared.case in names:
        through = names.index(declared.case) + 1
    else:
        return Check(
            f"{solution.path.name} fails as declared",
            False,
            f"declares case {declared.case!r}, which is not a case of the public seed "
            f"(its cases: {', '.join(names[:12])}{', ...' if len(names) > 12 else ''})",
            f"{expect_key}{declared}",
            "",
        )
    return fails_where_declared(solution, trusted.judge(source, through=through), expect_key)


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
    import difflib  # only a check measures a diff

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


def _determinism(
    problem: ProblemSpec, first: TrustedInputs, observed: dict[str, object] | None = None
) -> Check:
    """The public seed's cases and expected answers come out the same twice: the check's own
    computation of them (`first`, when it succeeded), then a second run of the reference.
    That second run is the reference's judged run on the public seed (`observed`, in a
    child like a submission's) when it answered every case identically; else, and where
    there is none, a fresh run here (a child's floating-point answers may differ in their
    last bits from this process's, under another thread count, and still be right)."""
    runs: list[tuple[str, list[bytes]] | None] = []
    for round_ in range(2):
        if round_ == 0 and first.cases is not None and first.expected is not None:
            cases, expected = first.cases, first.expected
        elif round_ == 1 and observed and _answers(cases, observed) == runs[0]:
            runs.append(runs[0])
            continue
        else:
            cases = build_cases(problem, PUBLIC_SEED)
            expected = run_reference(problem, cases)  # a run of its own, never a memo
        runs.append(_answers(cases, expected))
    same = runs[0] == runs[1]
    return Check(
        "reference deterministic", same, "identical observations" if same else "two runs differ"
    )


def _answers(cases: list[Case], answers: dict[str, object]) -> tuple[str, list[bytes]] | None:
    """The cases with their answers, as comparable bytes; None when one is missing."""
    if any(case.name not in answers for case in cases):
        return None
    tensors: list[TensorData] = []
    blob = json.dumps(
        encode([[c.name, c.args, answers[c.name]] for c in cases], tensors), sort_keys=True
    )
    return blob, [t.data for t in tensors]
