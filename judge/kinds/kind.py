"""What a kind of problem is: the one class the rest of the judge asks about a problem's kind.

The commands, the public bundle, the runner and the web platform never branch on a kind's
name; they ask the problem's kind (judge.kinds.registry.kind_of) instead. The browser's own
judge (judge/browser/public_run.py) is the exception: it ships to the learner alone, so it
reads the bundle's "kind" itself rather than import the kinds, which judge on the server.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from judge.messages import Message
from judge.problem.spec import ProblemSpec, ProblemToml

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from judge.grading.report import Report
    from judge.kinds.proof import Check
    from judge.problem.limits import Limits
    from judge.run.interfaces import Launcher
    from judge.run.judge_source import TrustedInputs
    from judge.run.phase import Progress

BUNDLE_FORMAT = 1  # every kind's public bundle says which format it is written in


class ProblemKindType(ABC):
    """One kind of problem. `name` is problem.toml's `kind`; the rest says what the kind
    means to each part of the judge."""

    name: str
    # Whether judging runs the submission in a child: then a sandbox, the limits and the
    # runner's cache of expected observations apply. A kind whose submissions are data is
    # judged in the trusted process, and `judge run` prints no note about a sandbox.
    runs_code: bool = True
    starter_suffix: str = ".py"  # the file `judge init` writes: `<slug>.py`, `<slug>.json`
    # How a known-bad submission declares where it fails, as `judge check --json` quotes it.
    expect_key: str = "expect: "

    @abstractmethod
    def load(self, toml: ProblemToml) -> ProblemSpec:
        """The problem from its folder, validated; a mistake is a SpecError naming the file
        and the field."""

    @abstractmethod
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
        """Judge `source`: raises SourceError for unacceptable source, else a report; any
        failure of the judge itself is IE, never WA. A kind that runs no code ignores what
        only running needs (`launcher`, `limits`, `progress`, `trusted`, `solution`)."""

    @abstractmethod
    def public_bundle(self, problem: ProblemSpec) -> dict[str, object]:
        """Everything the browser may see of a browser-tier problem, and nothing else; its
        "kind" is `name`, which the browser's judge reads."""

    @abstractmethod
    def self_check(
        self, problem: ProblemSpec, launcher: Launcher | None, checks: list[Check]
    ) -> None:
        """`judge check`: the proofs that the problem is sound before learners see it, each
        appended to `checks` as it is made (a SpecError part way keeps those before it)."""

    def details(self, problem: ProblemSpec) -> dict[str, object]:
        """What `judge show --json` adds to the summary, statement and starter."""
        return {}

    def public_details(self, problem: ProblemSpec) -> dict[str, object]:
        """What the web API's problem adds for the page (public by design)."""
        return {}

    @abstractmethod
    def show_text(self, problem: ProblemSpec, lang: str) -> str:
        """`judge show`'s text in `lang`: the title, what the learner must hand in, the
        statement."""

    @abstractmethod
    def init_said(self, target: Path, show: str, run: str) -> Message:
        """`judge init`'s line once it wrote the starter to `target`; `show` and `run` are
        the commands that show the problem and judge the file, as the user types them."""


def title_line(problem: ProblemSpec, lang: str) -> str:
    """The first line `judge show` prints for every kind."""
    return f"{problem.title[lang]}  [{problem.slug}]"
