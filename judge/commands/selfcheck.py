"""`judge check`: a problem proves itself before learners see it.

What is proved depends on the problem's kind (judge/kinds/): a code problem's reference,
starter, wrong and accepted solutions and determinism (judge/kinds/code_proof.py), a quiz's
answer key and wrong sheets (judge/kinds/quiz_kind.py). Here: the checks of each problem
gathered, and printed. difflib is imported by a check only: `judge run` never loads it.
"""

from __future__ import annotations

from judge.commands.render import table
from judge.errors import JudgeError
from judge.kinds.code_proof import diff_size
from judge.kinds.proof import Check, first_failure
from judge.kinds.registry import kind_of
from judge.messages import say
from judge.problem.spec import ProblemSpec
from judge.record import default, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher

__all__ = ["Check", "ProblemCheck", "check_problem", "diff_size", "first_failure", "print_checks"]


@record(frozen=False)
class ProblemCheck:
    slug: str
    checks: list[Check] = default(factory=list)

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
        kind_of(problem).self_check(problem, launcher, result.checks)
    except JudgeError as exc:
        result.checks.append(Check("problem loads", False, str(exc)))
    return result


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
