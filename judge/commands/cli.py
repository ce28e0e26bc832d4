"""The core's commands: list, show, init, run and check problems locally.

The core names nothing above it: the `judge` entry point passes in the launcher that
`run --sandbox` uses and the commands other packages add (serve, submit, runner), through
`main(argv, sandbox=..., commands=...)`. Alone (`python -m judge.commands.cli`) it has neither.

Exit codes: 0 accepted / all good, 1 a verdict other than AC or a failed check,
2 bad usage, bad input or an invalid problem, 130 interrupted, 141 the reader of stdout
left early (`judge list | head -1`), as a shell reports a command that SIGPIPE ended.

Hints name commands as the user started this one (`judge`, `python judge.py`,
`python practice/judge.py`), so each can be typed as printed: see `Invocation`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from judge.errors import JudgeError, UsageError
from judge.kinds.registry import kind_of
from judge.messages import Message, lang_of, raw, say
from judge.problem.device import DevicePolicy, parse_policy
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.record import record
from judge.run.source_check import validate_source
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.commands.early_run import EarlyRun
    from judge.grading.report import CaseResult, Report
    from judge.run.answer_cache import Checkpoints
    from judge.run.interfaces import Launcher
    from judge.run.judge_source import TrustedInputs
    from judge.run.launch import StartedLauncher
    from judge.run.phase import Progress

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130
# 128 + SIGPIPE, what a shell reports for `yes | head -1`'s yes: the reader that left is
# the reason, not a failure of ours, and `set -o pipefail` tells the two apart.
EXIT_READER_LEFT = 141


@record
class Invocation:
    """How this program was started, so that a hint names a command that works as printed."""

    command: str  # `judge`, `python judge.py`, `python practice/judge.py`, or -m judge.commands.cli
    python: str | None = None  # the interpreter as typed before a script or -m; None: `judge`
    checkout: str | None = None  # the folder of the script that ran, from the current one

    @classmethod
    def of_this_process(cls) -> Invocation:
        """From sys.orig_argv and sys.argv[0], as typed, and the current folder."""
        return cls.parse(getattr(sys, "orig_argv", []), sys.argv, os.getcwd())

    @classmethod
    def parse(cls, orig_argv: Sequence[str], argv: Sequence[str], cwd: str) -> Invocation:
        """orig_argv is the interpreter's whole command line, argv the script's: what comes
        before argv's arguments is the interpreter, its options and the script or `-m mod`."""
        if not argv or argv[0] in ("", "-c") or len(orig_argv) < len(argv):
            return cls("judge")  # embedded, `-c` or unknown: the installed command's name
        typed = [_on_path(orig_argv[0]), *orig_argv[1 : len(orig_argv) - len(argv) + 1]]
        if len(typed) >= 3 and typed[-2] == "-m":
            return cls(shlex.join(typed), shlex.join(typed[:-2]))
        script = _from(cwd, argv[0])
        if script.endswith(".py") and len(typed) >= 2:
            python = shlex.join(typed[:-1])
            checkout = os.path.dirname(script) or "."
            return cls(f"{python} {shlex.quote(script)}", python, checkout)
        # The installed command, run by its #! line: by name where PATH finds this one.
        name = _on_path(argv[0])
        if name != argv[0]:
            return cls(name)
        return cls(shlex.quote(script if os.sep in script else f".{os.sep}{script}"))

    def pip(self) -> str:
        """The pip of the interpreter that runs this program."""
        return f"{self.python} -m pip" if self.python is not None else "pip"

    def make(self) -> str:
        """make in the checkout (where the Makefile is)."""
        if self.checkout in (None, "."):
            return "make"
        return f"make -C {shlex.quote(str(self.checkout))}"


INSTALLED = Invocation("judge")  # the installed command, as typed


def _on_path(program: str) -> str:
    """A program's name where PATH finds it at this very path, else the program as given
    (the same path, not the same file: a venv's python is a link to one outside it)."""
    name = os.path.basename(program)
    if os.sep not in program:
        return program
    found = _first_on_path(name)
    same = found is not None and os.path.abspath(found) == os.path.abspath(program)
    return name if same else program


def _first_on_path(name: str) -> str | None:
    """The first executable file `name` in $PATH's folders, as a shell finds it (what
    shutil.which does on POSIX; shutil itself costs 2-3 ms: judge/commands/terminal.py)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _from(cwd: str, path: str) -> str:
    """A path as typed; an absolute one inside the current folder, relative to it."""
    if not os.path.isabs(path):
        return os.path.normpath(path)
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith(os.pardir) else relative


@record
class Command:
    """A command a package above the core adds: it parses its own options (argv after its
    name) and returns the exit code; a UsageError it raises is one line and exit 2."""

    help: str
    main: Callable[[list[str]], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 through UsageError."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own sentence stays English; the frame around it is the reader's.
        raise UsageError(say("cli.usage", message=raw(message), prog=self.prog))

    def _get_formatter(self) -> argparse.HelpFormatter:
        # With its width given, the formatter does not import shutil to read it (argparse
        # makes one for every option added, to check it).
        from judge.commands.terminal import terminal_columns

        make: Callable[..., argparse.HelpFormatter] = self.formatter_class
        return make(prog=self.prog, width=terminal_columns() - 2)


_LANG_HELP = "language to print in (default: from $LC_ALL / $LANG)"


def _add_lang(parser: argparse.ArgumentParser) -> None:
    """--lang on every core command, meaning one thing: the language of all it prints."""
    parser.add_argument("--lang", choices=("zh", "en"), default=None, help=_LANG_HELP)


def build_parser(
    sandbox: Callable[[DevicePolicy], Launcher] | None = None,
    commands: Mapping[str, Command] | None = None,
    invocation: Invocation = INSTALLED,
) -> argparse.ArgumentParser:
    """The core's commands; `run --sandbox` only with a sandbox, and each added command."""
    parser = _Parser(
        prog=invocation.command,
        description="Judge the LLM-inference handbook's exercises locally.",
    )
    parser.set_defaults(invocation=invocation)
    parser.add_argument(
        "--problems",
        type=Path,
        default=None,
        help="problems folder (default: $JUDGE_PROBLEMS or ./problems)",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("list", help="list the problems")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    _add_lang(p)
    p = sub.add_parser("show", help="print a problem's statement")
    p.add_argument("slug")
    _add_lang(p)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("init", help="write a problem's starter file")
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", type=Path, default=Path("."))
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    _add_lang(p)
    p = sub.add_parser("run", help="judge a solution file on a problem")
    p.add_argument("slug")
    p.add_argument("file", type=Path)
    p.add_argument("--json", action="store_true")
    _add_lang(p)
    p.add_argument(
        "--show-test",
        nargs="?",
        const="",
        default=None,
        metavar="CASE",
        help="print only a Python test that reproduces the failing public case CASE "
        "(default: the first one); give it after the file",
    )
    p.add_argument(
        "--picture",
        default=None,
        metavar="CASE",
        help="print only the picture of public case CASE, passed or failed (serve-engine: "
        "your run's timeline beside the reference's); give it after the file",
    )
    p.add_argument(
        "--input",
        type=Path,
        default=None,
        metavar="ARGS_JSON",
        help="run your code and the reference on your own arguments (a JSON file shaped "
        "like a public case's args) and print both results",
    )
    if sandbox is not None:
        p.add_argument(
            "--sandbox", action="store_true", help="judge inside the sandbox the server uses"
        )
    p.set_defaults(sandbox=False, make_sandbox=sandbox)
    p.add_argument(
        "--device",
        default=None,
        metavar="auto|cpu|cuda",
        help="where the cases run: cuda where there is a GPU and the problem allows it (auto), "
        "always the CPU, or always CUDA (default: $JUDGE_DEVICE, else auto)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="generated-case seed (default: the public seed)"
    )
    p = sub.add_parser("check", help="self-test problems (for authors)")
    p.add_argument("slugs", nargs="*")
    p.add_argument("--json", action="store_true")
    _add_lang(p)
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
    sandbox: Callable[[DevicePolicy], Launcher] | None = None,
    commands: Mapping[str, Command] | None = None,
    invocation: Invocation | None = None,
    checkpoints: Checkpoints | None = None,
) -> int:
    """Run one command; `sandbox` makes the launcher of `run --sandbox`, `commands` are
    the commands added from above the core. Hints name commands as `invocation`: by
    default this process's own when argv is None, else `judge`. `checkpoints` lists every
    checkpoint file a torch problem may load: with it, `judge run` keeps such a problem's
    public answers between runs (judge/run/answer_cache.py)."""
    if invocation is None:
        invocation = Invocation.of_this_process() if argv is None else INSTALLED
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            return _run(argv, sandbox, dict(commands or {}), invocation, checkpoints)
        finally:
            sys.stdout.flush()  # now, not at shutdown, so that a reader who left is seen here
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_READER_LEFT


def _run(
    argv: list[str],
    sandbox: Callable[[DevicePolicy], Launcher] | None,
    added: dict[str, Command],
    invocation: Invocation,
    checkpoints: Checkpoints | None = None,
) -> int:
    problems, rest = _leading_problems(argv)
    try:
        if rest and rest[0] in added:  # it parses its own options, argparse never sees them
            if problems is not None:
                os.environ["JUDGE_PROBLEMS"] = problems
            return added[rest[0]].main(rest[1:])
        early = _early_run(problems, rest)
        try:
            args = build_parser(sandbox, added, invocation).parse_args(argv)
            args.early = early
            args.checkpoints = checkpoints
            return COMMANDS[args.command](args)
        finally:
            if early is not None:
                early.close()
    except JudgeError as exc:
        # The language is read from argv itself: the error may be argparse's, before any
        # args exist. Messages name commands as `judge ...`; only here is it known how
        # they are typed.
        lang = _lang_in(rest)
        text = exc.said.render(lang) if exc.said is not None else str(exc)
        message = text.replace("`judge ", f"`{invocation.command} ")
        print(f"judge: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"judge: {say('cli.interrupted').render(_lang_in(rest))}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _early_run(problems: str | None, rest: list[str]) -> EarlyRun | None:
    """`judge run`'s child, started before the parser is built (judge/commands/early_run.py)."""
    if rest[:1] != ["run"]:
        return None
    from judge.commands.early_run import EarlyRun

    folder = Path(problems) if problems is not None else None
    try:
        problem_set = _learners_problems(folder)
    except JudgeError:
        return None  # no such folder: the parsed command says so
    return EarlyRun.start(rest, problem_set, folder)


def _lang_in(argv: Sequence[str]) -> str:
    """The language a command line asks for: its last valid `--lang`, else the
    environment's. Read from the words, so it holds for an error argparse raises too."""
    chosen = None
    for i, word in enumerate(argv):
        if word == "--":
            break
        value = argv[i + 1] if word == "--lang" and i + 1 < len(argv) else None
        if word.startswith("--lang="):
            value = word.partition("=")[2]
        if value in ("zh", "en"):
            chosen = value
    return chosen or _default_lang()


def _lang(args: argparse.Namespace) -> str:
    return str(args.lang) if args.lang else _default_lang()


def _discard_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered for the reader who left goes
    nowhere at shutdown instead of raising BrokenPipeError there ("Exception ignored")."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (captured output): nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _command(invocation: Invocation, problems: object, rest: str) -> str:
    """A command line to print: the program as started, its --problems, then `rest`."""
    folder = f" --problems {shlex.quote(str(problems))}" if problems is not None else ""
    return f"{invocation.command}{folder} {rest}"


def _learners_problems(problems: Path | None) -> ProblemSet:
    """The problems a learner's command reads one of (run, show, init), their specs kept
    between runs (judge/problem/spec_cache.py). `judge check`, an author's, loads each
    folder afresh."""
    from judge.problem.spec_cache import SpecCache, default_folder

    folder = default_folder()
    return ProblemSet(problems, cache=SpecCache(folder) if folder is not None else None)


def cmd_list(args: argparse.Namespace) -> int:
    problems = ProblemSet(args.problems).all()
    if args.json:
        _print_json([p.summary() for p in problems])
        return EXIT_OK
    lang = _lang(args)
    rows = [(p.slug, str(p.kind), p.tier, str(p.points), p.title[lang]) for p in problems]
    _print_table(say("cli.list_header").render(lang).split("|"), rows)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    problem = _learners_problems(args.problems).get(args.slug)
    kind = kind_of(problem)
    lang = _lang(args)
    if args.json:
        extra: dict[str, object] = {
            "statement": problem.statement(lang),
            "starter": problem.starter_source(),
        }
        _print_json(problem.summary() | extra | kind.details(problem))
        return EXIT_OK
    print(kind.show_text(problem, lang))
    return EXIT_OK


def cmd_init(args: argparse.Namespace) -> int:
    problem = _learners_problems(args.problems).get(args.slug)
    kind = kind_of(problem)
    if not args.dir.is_dir():
        raise UsageError(say("cli.not_a_folder", path=str(args.dir)))
    target = args.dir / f"{problem.slug.replace('-', '_')}{kind.starter_suffix}"
    if target.exists() and not args.force:
        raise UsageError(say("cli.already_exists", path=str(target)))
    target.write_text(problem.starter_source(), encoding="utf-8")
    slug = shlex.quote(problem.slug)
    run = _command(args.invocation, args.problems, f"run {slug} {shlex.quote(str(target))}")
    show = _command(args.invocation, args.problems, f"show {slug}")
    print(kind.init_said(target, show, run).render(_lang(args)))
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    if args.json and args.show_test is not None:
        raise UsageError(say("cli.json_or_show_test"))
    if args.picture is not None and (args.json or args.show_test is not None):
        raise UsageError(say("cli.picture_alone"))
    if args.input is not None:
        return run_input(args)
    early: EarlyRun | None = args.early
    if early is not None and not early.serves(args.slug, args.problems, args.sandbox, False):
        early = None
    problem = early.problem if early else _learners_problems(args.problems).get(args.slug)
    _require_torch(problem, args.invocation)
    source = read_source(args.file)
    kind = kind_of(problem)
    runs = kind.runs_code  # answers that are data run nothing: no sandbox is needed
    policy = _device_policy(args)
    launcher = args.make_sandbox(policy) if args.sandbox and runs else None
    lang = _lang(args)
    if launcher is None and not args.json and runs:
        print(say("cli.no_sandbox").render(lang), file=sys.stderr)
    progress = None if args.json or not sys.stderr.isatty() else _progress_in(lang)
    # A local child starts now, if the words did not start it already (EarlyRun), and its
    # interpreter starts while this process imports the judging machinery below. Not under
    # a CPU rule: the reference is timed in a child of its own first, with nothing else
    # running.
    started: StartedLauncher | None = None
    if launcher is None and runs:
        if early is not None and early.policy is policy:
            started = early.launcher
        else:
            from judge.run.launch import StartedLauncher

            started = StartedLauncher(
                problem, problem.limits, policy, start=problem.cpu_rule is None
            )
    try:
        saved = _saved_answers(problem, args.seed, args.checkpoints) if runs else None
        report = kind.judge(
            problem, source, seed=args.seed, launcher=launcher or started, progress=progress,
            solution=str(args.file), trusted=saved,
        )  # fmt: skip
    finally:
        if started is not None:
            started.close()
    if args.json:
        _print_json(report.to_dict())
    elif args.show_test is not None:
        print(_failing_case(report, args.show_test).test)
    elif args.picture is not None:
        from judge.commands.render import picture_lines

        print("\n".join(picture_lines(_pictured_case(report, args.picture), lang)))
    else:
        from judge.commands.render import print_report  # only the text report needs it

        quoted = f"{shlex.quote(problem.slug)} {shlex.quote(str(args.file))}"
        show_test = _command(args.invocation, args.problems, f"run {quoted} --show-test")
        print_report(report, problem, lang, show_test)
    return EXIT_OK if report.verdict is Verdict.AC else EXIT_FAIL


def _saved_answers(
    problem: ProblemSpec, seed: int | None, checkpoints: Checkpoints | None
) -> TrustedInputs | None:
    """The public cases and the reference's answers of a torch problem that loads
    checkpoints, kept from an earlier run while nothing they came from has changed; else
    the judging computes them in its usual order and hands them over to be kept
    (judge/run/answer_cache.py). None where nothing is kept."""
    if checkpoints is None or not problem.models:
        return None  # a browser-tier `judge run` imports none of it
    from judge.run import answer_cache

    folder = answer_cache.default_folder()
    if folder is None or not answer_cache.applies_to(problem, seed):
        return None
    from judge.run.budget import budget_for
    from judge.run.judge_source import TrustedInputs

    cache = answer_cache.AnswerCache(folder, checkpoints)
    kept = cache.get(problem)
    if kept is not None:
        cases, expected = kept
        return TrustedInputs(cases, expected, budget_for(expected))
    computed_here = TrustedInputs()
    computed_here.keep = lambda cases, expected: cache.put(problem, cases, expected)
    return computed_here


def _device_policy(args: argparse.Namespace) -> DevicePolicy:
    """--device, else $JUDGE_DEVICE, else auto; a usage error naming the choices."""
    given = args.device if args.device is not None else os.environ.get("JUDGE_DEVICE", "auto")
    where = "--device" if args.device is not None else "JUDGE_DEVICE"
    try:
        return parse_policy(given, where)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_input(args: argparse.Namespace) -> int:
    """`judge run SLUG FILE --input ARGS_JSON`: the learner's code and the reference on the
    learner's own arguments, each in a child, printed side by side. A refused input is a
    usage error (exit 2); 0 when the code answers as the reference does, else 1."""
    given_options = (
        ("--show-test", args.show_test),
        ("--seed", args.seed),
        ("--picture", args.picture),
    )
    for option, given in given_options:
        if given is not None:
            raise UsageError(say("cli.input_options", option=option))
    problem = _learners_problems(args.problems).get(args.slug)
    if not kind_of(problem).runs_code:
        raise UsageError(say("input.not_code", slug=problem.slug))
    _require_torch(problem, args.invocation)
    source = read_source(args.file)
    from judge.problem.custom_input import CustomInput
    from judge.run.custom_run import run_custom

    text = _read_text(args.input)
    custom = CustomInput.from_text(problem, text)  # InputRefused: one line, exit 2
    launcher = args.make_sandbox(_device_policy(args)) if args.sandbox else None
    lang = _lang(args)
    if launcher is None and not args.json:
        print(say("cli.no_sandbox").render(lang), file=sys.stderr)
    try:
        ran = run_custom(problem, custom.args, source, launcher)
    finally:
        close = getattr(launcher, "close", None)
        if close is not None:
            close()
    if args.json:
        _print_json(ran.to_dict())
    else:
        from judge.commands.render import print_custom_run

        print_custom_run(ran, problem, str(args.input), lang)
    if ran.refused is not None or ran.reference_failure is not None:
        return EXIT_USAGE
    return EXIT_OK if ran.report is not None and ran.report.verdict is Verdict.AC else EXIT_FAIL


def _read_text(path: Path) -> str:
    """A text file the learner named (their input), or one clear line about why not."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise UsageError(say("cli.no_such_file", path=str(path))) from None
    except IsADirectoryError:
        raise UsageError(say("cli.is_a_folder", path=str(path))) from None
    except UnicodeDecodeError as exc:
        reason = raw(f"not UTF-8 at byte {exc.start}")
        raise UsageError(say("cli.slug_reason", slug=str(path), reason=reason)) from None
    except OSError as exc:
        raise UsageError(say("cli.cannot_read", path=str(path), error=str(exc.strerror))) from None


def _pictured_case(report: Report, name: str) -> CaseResult:
    """The public case `--picture` names, if its report carries a picture."""
    case = next((c for c in report.cases if c.name == name), None)
    if case is None:
        public = [c for c in report.cases if c.public]
        names = ", ".join(c.name for c in public[:8]) + (", ..." if len(public) > 8 else "")
        raise UsageError(say("cli.no_such_case", name=repr(name), names=names))
    if not case.public:
        raise UsageError(say("cli.case_hidden", name=repr(name)))
    if case.input is None or case.input.picture is None:
        raise UsageError(say("cli.no_picture", name=repr(name)))
    return case


def _failing_case(report: Report, name: str) -> CaseResult:
    """The case `--show-test` names (the first failing public one for ""), if it has a test."""
    public = [c for c in report.cases if c.public]
    if not name:
        failing = next((c for c in public if c.test is not None), None)
        if failing is None:
            raise UsageError(say("cli.no_failing_case"))
        return failing
    case = next((c for c in report.cases if c.name == name), None)
    if case is None:
        names = ", ".join(c.name for c in public[:8]) + (", ..." if len(public) > 8 else "")
        raise UsageError(say("cli.no_such_case", name=repr(name), names=names))
    if not case.public:
        raise UsageError(say("cli.case_hidden", name=repr(name)))
    if case.verdict in (Verdict.AC, None):
        state = "cli.case_passed" if case.verdict is Verdict.AC else "cli.case_not_run"
        raise UsageError(say(state, name=repr(name)))
    if case.test is None:
        raise UsageError(say("cli.test_too_long", name=repr(name)))
    return case


def cmd_check(args: argparse.Namespace) -> int:
    from judge.commands.selfcheck import check_problem, print_checks

    problems = ProblemSet(args.problems)
    specs = [problems.get(s) for s in args.slugs] if args.slugs else problems.all()
    lang = _lang(args)
    for spec in specs if args.slugs else ():
        _require_torch(spec, args.invocation)  # named on purpose: say what is missing
    if not args.slugs and not torch_installed():  # the whole set: check what can be checked
        for spec in (s for s in specs if s.tier == "torch"):
            skipped = say("cli.skipped", slug=spec.slug, reason=torch_needed(args.invocation))
            print(skipped.render(lang), file=sys.stderr)
        specs = [s for s in specs if s.tier != "torch"]
    code_problems = any(kind_of(s).runs_code for s in specs)
    launcher = args.make_sandbox(DevicePolicy.AUTO) if args.sandbox and code_problems else None
    try:
        results = [check_problem(p, launcher) for p in specs]
    finally:
        close = getattr(launcher, "close", None)  # the sandbox's workers go with it
        if close is not None:
            close()
    if args.json:
        _print_json([r.to_dict() for r in results])
    else:
        print_checks(results, lang)
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAIL


def torch_needed(invocation: Invocation) -> Message:
    """Why a torch-tier problem cannot run here, and the commands that fix it."""
    return say("cli.torch_needed", pip=invocation.pip(), make=invocation.make())


def torch_installed() -> bool:
    """Whether torch is there to import (torch-tier problems compute their answers with it).
    Looked up, not imported: the core names no package outside the standard library."""
    import importlib.util

    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules["torch"] is None (blocked)
        return False


def _require_torch(problem: ProblemSpec, invocation: Invocation) -> None:
    if problem.tier == "torch" and not torch_installed():
        raise UsageError(say("cli.slug_reason", slug=problem.slug, reason=torch_needed(invocation)))


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
        data = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(say("cli.no_such_file", path=str(path))) from None
    except IsADirectoryError:
        raise UsageError(say("cli.is_a_folder", path=str(path))) from None
    except OSError as exc:
        raise UsageError(say("cli.cannot_read", path=str(path), error=str(exc.strerror))) from None
    try:
        return validate_source(data)
    except JudgeError as exc:
        # The source's own reason is shared with the server and stays its English text.
        raise UsageError(say("cli.slug_reason", slug=str(path), reason=raw(str(exc)))) from None


def _progress_in(lang: str) -> Progress:
    from judge.run.phase import Phase, Stage

    def progress(phase: Phase) -> None:
        end = "\n" if phase.stage is Stage.REPORTING else ""
        # One count: a stage that counts its own steps is said alone (web: submissions.js).
        if phase.of > 0:
            said = phase.said()
        else:
            said = say("cli.progress", phase=phase.said(), done=phase.done, total=phase.total)
        # Padded: a shorter line overwrites a longer one on the same terminal row.
        print(f"\r  {said.render(lang):<60}", end=end, file=sys.stderr, flush=True)

    return progress


def _default_lang() -> str:
    return lang_of(dict(os.environ))


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    from judge.commands.render import table

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
