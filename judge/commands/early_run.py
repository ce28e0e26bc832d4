"""`judge run`'s child, started from the command line's words before argparse reads them.

A `judge run` waits for two things: this process's own imports and set-up, and the
child's interpreter getting ready (about 20 ms: `python -I -S`, then `json` and `re`). The
child starts as soon as the problem is known; building argparse's parser first (about
5 ms, most of it `shutil` and gettext's look-ups) would only delay it. So the plain forms
`run SLUG FILE [...]` start it from the words themselves, and `cmd_run` takes it over
once the parsed arguments agree (same problem folder and slug, the same device policy, no
--sandbox, no --input). Words that do not parse, or a run that does not take the child,
cost that child's start and nothing else: it is killed and its folder removed.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import JudgeError
from judge.kinds.registry import kind_of
from judge.problem.device import DevicePolicy, parse_policy
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.launch import StartedLauncher

# Options after which the run is not a plain local one: it never takes an early child.
_NOT_PLAIN = ("--sandbox", "--input", "--device")


class EarlyRun:
    """The problem of `run SLUG FILE` and its local child, already starting."""

    __slots__ = ("launcher", "policy", "problem", "problems", "slug")

    def __init__(
        self,
        slug: str,
        problem: ProblemSpec,
        problems: Path | None,
        policy: DevicePolicy,
        launcher: StartedLauncher,
    ) -> None:
        self.slug, self.problem, self.problems = slug, problem, problems
        self.policy, self.launcher = policy, launcher

    @classmethod
    def start(
        cls, words: list[str], problem_set: ProblemSet, problems: Path | None
    ) -> EarlyRun | None:
        """Started for `words` (the command line after any leading --problems), or None
        where they are not a plain `run SLUG FILE` of a code problem without a CPU rule
        (under one, the reference is timed first with nothing else running)."""
        if len(words) < 3 or words[0] != "run" or any(w.startswith("-") for w in words[1:3]):
            return None
        if any(w.startswith(_NOT_PLAIN) for w in words[3:]):
            return None
        try:
            policy = parse_policy(os.environ.get("JUDGE_DEVICE", "auto"), "JUDGE_DEVICE")
            problem = problem_set.get(words[1])
        except (JudgeError, ValueError):
            return None  # the parsed command says what is wrong, in the learner's language
        if not kind_of(problem).runs_code or problem.cpu_rule is not None:
            return None
        from judge.run.launch import StartedLauncher

        try:
            launcher = StartedLauncher(problem, problem.limits, policy)
        except JudgeError:
            return None  # e.g. no device for it: said again by the parsed command
        return cls(words[1], problem, problems, policy, launcher)

    def serves(self, slug: str, problems: Path | None, sandbox: bool, given_input: bool) -> bool:
        """Whether this is the child of the run the parsed arguments describe."""
        same = slug == self.slug and problems == self.problems
        return same and not sandbox and not given_input

    def close(self) -> None:
        """End the child if no run took it; remove its folder. Idempotent."""
        self.launcher.close()
