"""Code problems: a submission is Python, run in a child on the problem's cases and compared
with reference.py's observations (judge/run/judge_source.py)."""

from __future__ import annotations

from judge.kinds.kind import BUNDLE_FORMAT, ProblemKindType, title_line
from judge.messages import LANGS, Message, say
from judge.problem.spec import ProblemKind, ProblemSpec, ProblemToml, load_code

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from judge.grading.report import Report
    from judge.kinds.proof import Check
    from judge.problem.limits import Limits
    from judge.run.interfaces import Launcher
    from judge.run.judge_source import TrustedInputs
    from judge.run.phase import Progress


class CodeKind(ProblemKindType):
    """problem.toml's `kind = "code"` (the default): starter.py, reference.py, cases.py."""

    name = ProblemKind.CODE
    runs_code = True
    starter_suffix = ".py"
    expect_key = "expect: "

    def load(self, toml: ProblemToml) -> ProblemSpec:
        return load_code(toml)

    def judge(
        self,
        problem: ProblemSpec,
        source: str,
        *,
        seed: int | None = None,
        launcher: Launcher | None = None,
        limits: Limits | None = None,
        progress: Progress | None = None,
        trusted: TrustedInputs | None = None,
        solution: str = "",
    ) -> Report:
        # The running machinery, imported when something runs (`judge list` needs none of it).
        from judge.run.judge_source import TrustedInputs, judge_source

        given = trusted if trusted is not None else TrustedInputs()
        return judge_source(
            problem, source, seed=seed, launcher=launcher, limits=limits, progress=progress,
            cases=given.cases, expected=given.expected, budget=given.budget, cpu=given.cpu,
            solution=solution, spread_limit=given.spread_limit, keep=given.keep,
        )  # fmt: skip

    def public_bundle(self, problem: ProblemSpec) -> dict[str, object]:
        """The public cases with their expected observations, computed here by CPython from
        the reference; never the reference itself or anything of a secret seed."""
        from judge.problem.cases import PUBLIC_SEED, build_cases
        from judge.run.judge_source import expected_observations
        from judge.wire.codec import encode
        from judge.wire.tensor import TensorData

        cases = build_cases(problem, PUBLIC_SEED)
        expected = expected_observations(problem, cases)
        tensors: list[TensorData] = []
        return {
            "format": BUNDLE_FORMAT,
            "kind": str(self.name),
            "problem": problem.summary(),
            "statements": {lang: problem.statement(lang) for lang in LANGS},
            "starter": problem.starter_source(),
            "driver": problem.cases_source(),
            "cases": [
                {
                    "name": c.name,
                    "args": c.args,
                    "check": c.check.to_dict(),
                    "expected": encode(expected[c.name], tensors),
                }
                for c in cases
            ],
        }

    def self_check(
        self, problem: ProblemSpec, launcher: Launcher | None, checks: list[Check]
    ) -> None:
        from judge.kinds.code_proof import prove_code  # difflib and the runs: `judge check` only

        prove_code(problem, launcher, self.expect_key, checks)

    def show_text(self, problem: ProblemSpec, lang: str) -> str:
        limits = problem.limits
        meta = say(
            "cli.show_code",
            tier=problem.tier,
            points=str(problem.points),
            time=f"{limits.time_per_case_s:g}",
            memory=limits.memory_mb,
            tags=", ".join(problem.tags),
        )
        define = say("cli.show_define", names=", ".join(problem.names))
        lines = (title_line(problem, lang), meta.render(lang), define.render(lang) + "\n")
        return "\n".join((*lines, problem.statement(lang)))

    def init_said(self, target: Path, show: str, run: str) -> Message:
        return say("cli.init_wrote", target=str(target), run=run)
