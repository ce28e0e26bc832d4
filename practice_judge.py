"""The whole `judge` command: the core's commands plus what the packages above it add.

The only module that knows every package, and nothing imports it. It hands the core
(judge.commands.cli) the sandbox launcher of `judge run --sandbox` and the `serve`, `submit` and
`runner` commands; each is imported when its command runs, so `judge list`, `show`, `init`,
`run` and `check` need nothing beyond the standard library, as from a fresh checkout
(`python judge.py ...`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from judge.commands import cli
from judge.errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import NoReturn

    from judge.problem.device import DevicePolicy
    from judge.run.interfaces import Launcher


@contextmanager
def _needs(package: str, what: str) -> Iterator[None]:
    """An import that fails because a package or its extras are absent is a usage error."""
    try:
        yield
    except ImportError as exc:
        raise UsageError(f"{what} needs the {package} package and its extras ({exc})") from None


def sandbox_launcher(device: DevicePolicy) -> Launcher:
    """The launcher of `judge run --sandbox`: exactly the server's sandbox, one job each,
    choosing each job's device by `device` (--device)."""
    with _needs("runner", "--sandbox"):
        from runner.api import sandbox_launcher as make
    return make(device)


def serve(argv: list[str]) -> int:
    with _needs("web", "`judge serve`"):
        from web.cli import serve as run
    return run(argv)


def worker(argv: list[str]) -> int:
    with _needs("web", "`judge worker`"):
        from web.cli import worker as run
    return run(argv)


def submit(argv: list[str]) -> int:
    with _needs("web", "`judge submit`"):
        from web.cli import submit as run
    return run(argv)


def runner(argv: list[str]) -> int:
    with _needs("runner", "`judge runner`"):
        from runner.cli import main as run
    return run(argv)


def checkpoint_files() -> list[Path]:
    """Every checkpoint file a torch problem's cases and reference may load (mini_llm's
    models folder): `judge run` keeps a problem's public answers while these, and the code
    that computed them, are unchanged (judge/run/answer_cache.py). Asked only for a torch
    problem that loads checkpoints: mini_llm.zoo brings torch into this process, as judging
    such a problem does without kept answers (its checkers compare tensors with it, and its
    report names torch's version), while the child imports its own beside it."""
    from mini_llm.zoo import models_root

    root = models_root()
    return sorted(path for path in root.rglob("*") if path.is_file())


COMMANDS = {
    "serve": cli.Command("start the web platform", serve),
    "worker": cli.Command("judge the Celery queue's submissions (JUDGE_BROKER_URL)", worker),
    "submit": cli.Command("submit to a server", submit),
    "runner": cli.Command("runner tools (doctor)", runner),
}


def main(argv: Sequence[str] | None = None) -> int:
    """One `judge ...` command, in this process: exit codes and --json output as the core
    CLI's."""
    return cli.main(argv, sandbox=sandbox_launcher, commands=COMMANDS, checkpoints=checkpoint_files)


def entry() -> NoReturn:
    """The `judge` command and `python judge.py`: the command, then the process ends
    without the interpreter's teardown where that is safe (judge/commands/process_exit.py)."""
    from judge.commands.process_exit import end_process

    end_process(main())


if __name__ == "__main__":
    entry()
