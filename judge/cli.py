"""The core's commands: list, show, init, run and check problems locally.

The core names nothing above it: the `judge` entry point passes in the launcher that
`run --sandbox` uses and the commands other packages add (serve, submit, runner), through
`main(argv, sandbox=..., commands=...)`. Alone (`python -m judge.cli`) it has neither.

Exit codes: 0 accepted / all good, 1 a verdict other than AC or a failed check,
2 bad usage, bad input or an invalid problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.errors import JudgeError, UsageError
from judge.problemset import ProblemSet
from judge.source import validate_source
from judge.spec import ProblemSpec
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.interfaces import Launcher

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Command:
    """A command a package above the core adds: it parses its own options (argv after its
    name) and returns the exit code; a UsageError it raises is one line and exit 2."""

    help: str
    main: Callable[[list[str]], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 through UsageError."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def build_parser(
    sandbox: Callable[[], Launcher] | None = None, commands: Mapping[str, Command] | None = None
) -> argparse.ArgumentParser:
    """The core's commands; `run --sandbox` only with a sandbox, and each added command."""
    parser = _Parser(
        prog="judge", description="Judge the LLM-inference handbook's exercises locally."
    )
    parser.add_argument(
        "--problems",
        type=Path,
        default=None,
        help="problems folder (default: $JUDGE_PROBLEMS or ./problems)",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("list", help="list the problems")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub.add_parser("show", help="print a problem's statement")
    p.add_argument("slug")
    p.add_argument(
        "--lang",
        choices=("zh", "en"),
        default=None,
        help="statement language (default: from $LANG)",
    )
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("init", help="write a problem's starter file")
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", type=Path, default=Path("."))
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p = sub.add_parser("run", help="judge a solution file on a problem")
    p.add_argument("slug")
    p.add_argument("file", type=Path)
    p.add_argument("--json", action="store_true")
    if sandbox is not None:
        p.add_argument(
            "--sandbox", action="store_true", help="judge inside the sandbox the server uses"
        )
    p.set_defaults(sandbox=False, make_sandbox=sandbox)
    p.add_argument(
        "--seed", type=int, default=None, help="generated-case seed (default: the public seed)"
    )
    p = sub.add_parser("check", help="self-test problems (for authors)")
    p.add_argument("slugs", nargs="*")
    p.add_argument("--json", action="store_true")
    if sandbox is not None:
        p.add_argument(
            "--sandbox", action="store_true", help="run every check inside the server's sandbox"
        )
    p.set_defaults(sandbox=False, make_sandbox=sandbox)
    for name, command in (commands or {}).items():
        p = sub.add_parser(name, help=command.help, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    sandbox: Callable[[], Launcher] | None = None,
    commands: Mapping[str, Command] | None = None,
) -> int:
    """Run one command; `sandbox` makes the launcher of `run --sandbox`, `commands` are
    the commands added from above the core."""
    argv = list(sys.argv[1:] if argv is None else argv)
    added = dict(commands or {})
    try:
        problems, rest = _leading_problems(argv)
        if rest and rest[0] in added:  # it parses its own options, argparse never sees them
            if problems is not None:
                os.environ["JUDGE_PROBLEMS"] = problems
            return added[rest[0]].main(rest[1:])
        args = build_parser(sandbox, added).parse_args(argv)
        return COMMANDS[args.command](args)
    except JudgeError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130


def cmd_list(args: argparse.Namespace) -> int:
    problems = ProblemSet(args.problems).all()
    if args.json:
        _print_json([p.summary() for p in problems])
        return EXIT_OK
    lang = _default_lang()
    rows = [(p.slug, p.kind.value, p.tier, str(p.points), p.title[lang]) for p in problems]
    _print_table(("problem", "kind", "tier", "points", "title"), rows)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    problem = ProblemSet(args.problems).get(args.slug)
    lang = args.lang or _default_lang()
    if args.json:
        extra: dict[str, object] = {
            "statement": problem.statement(lang),
            "starter": problem.starter_source(),
        }
        if problem.quiz is not None:
            extra["questions"] = [q.to_dict() for q in problem.quiz.questions]
        _print_json(problem.summary() | extra)
        return EXIT_OK
    if problem.quiz is not None:
        from judge.render import quiz_text

        print(f"{problem.title[lang]}  [{problem.slug}]")
        print(f"quiz · {problem.points} points · {len(problem.quiz.questions)} questions\n")
        print(problem.statement(lang))
        print(quiz_text(problem.quiz.questions, lang))
        return EXIT_OK
    limits = problem.limits
    print(f"{problem.title[lang]}  [{problem.slug}]")
    print(
        f"tier {problem.tier} · {problem.points} points · "
        f"{limits.time_per_case_s:g} s per case · {limits.memory_mb} MiB · "
        f"tags: {', '.join(problem.tags)}"
    )
    print(f"define: {', '.join(problem.names)}\n")
    print(problem.statement(lang))
    return EXIT_OK


def cmd_init(args: argparse.Namespace) -> int:
    problem = ProblemSet(args.problems).get(args.slug)
    if not args.dir.is_dir():
        raise UsageError(f"{args.dir} is not a folder")
    suffix = ".json" if problem.quiz is not None else ".py"
    target = args.dir / f"{problem.slug.replace('-', '_')}{suffix}"
    if target.exists() and not args.force:
        raise UsageError(f"{target} already exists; use --force to overwrite it")
    target.write_text(problem.starter_source(), encoding="utf-8")
    if problem.quiz is not None:
        print(f"wrote {target}: replace each null with your answer (`judge show {problem.slug}`")
        print(f"lists the questions); judge it with: judge run {problem.slug} {target}")
        return EXIT_OK
    print(f"wrote {target}; judge it with: judge run {problem.slug} {target}")
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from judge.judging import judge_source
    from judge.render import print_report

    problem = ProblemSet(args.problems).get(args.slug)
    _require_torch(problem)
    source = read_source(args.file)
    quiz = problem.quiz is not None  # answers are data: nothing runs, no sandbox is needed
    launcher = args.make_sandbox() if args.sandbox and not quiz else None
    if launcher is None and not args.json and not quiz:
        print(
            "note: running without a sandbox (fine for your own code; the server sandboxes)",
            file=sys.stderr,
        )
    progress = None if args.json or not sys.stderr.isatty() else _progress
    report = judge_source(problem, source, seed=args.seed, launcher=launcher, progress=progress)
    if args.json:
        _print_json(report.to_dict())
    else:
        print_report(report, problem, _default_lang())
    return EXIT_OK if report.verdict is Verdict.AC else EXIT_FAIL


def cmd_check(args: argparse.Namespace) -> int:
    from judge.selfcheck import check_problem, print_checks

    problems = ProblemSet(args.problems)
    specs = [problems.get(s) for s in args.slugs] if args.slugs else problems.all()
    for spec in specs if args.slugs else ():
        _require_torch(spec)  # named on purpose: say what is missing
    if not args.slugs and not torch_installed():  # the whole set: check what can be checked
        for spec in (s for s in specs if s.tier == "torch"):
            print(f"{spec.slug}: skipped, {TORCH_NEEDED}", file=sys.stderr)
        specs = [s for s in specs if s.tier != "torch"]
    code_problems = any(s.quiz is None for s in specs)
    launcher = args.make_sandbox() if args.sandbox and code_problems else None
    try:
        results = [check_problem(p, launcher) for p in specs]
    finally:
        close = getattr(launcher, "close", None)  # the sandbox's workers go with it
        if close is not None:
            close()
    if args.json:
        _print_json([r.to_dict() for r in results])
    else:
        print_checks(results)
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAIL


TORCH_NEEDED = (
    "this problem needs PyTorch, which is not installed here; "
    "install it with: pip install torch==2.13.0 (or `make setup`)"
)


def torch_installed() -> bool:
    """Whether torch is there to import (torch-tier problems compute their answers with it).
    Looked up, not imported: the core names no package outside the standard library."""
    import importlib.util

    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules["torch"] is None (blocked)
        return False


def _require_torch(problem: ProblemSpec) -> None:
    if problem.tier == "torch" and not torch_installed():
        raise UsageError(f"{problem.slug}: {TORCH_NEEDED}")


def _leading_problems(argv: list[str]) -> tuple[str | None, list[str]]:
    """Split `--problems DIR` (or `--problems=DIR`) off the front of argv.

    An added command gets the folder as $JUDGE_PROBLEMS: `judge --problems DIR serve ...`."""
    if len(argv) >= 2 and argv[0] == "--problems":
        return argv[1], argv[2:]
    if argv and argv[0].startswith("--problems="):
        return argv[0].partition("=")[2], argv[1:]
    return None, argv


def read_source(path: Path) -> str:
    """Read a solution file, or raise one clear line about why not."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return validate_source(raw)
    except JudgeError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _progress(done: int, total: int) -> None:
    end = "\n" if done == total else ""
    print(f"\r  case {done}/{total}", end=end, file=sys.stderr, flush=True)


def _default_lang() -> str:
    lang = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    return "zh" if lang.lower().startswith("zh") else "en"


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    from judge.render import table

    print(table(header, rows))


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": cmd_list,
    "show": cmd_show,
    "init": cmd_init,
    "run": cmd_run,
    "check": cmd_check,
}


if __name__ == "__main__":
    sys.exit(main())
