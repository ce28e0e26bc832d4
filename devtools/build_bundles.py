"""Write the public material the browser loads: judge.zip and problems/<slug>.json.

Run as `python -m devtools.build_bundles --out web/static/dist` (the front-end build does).
Only public material leaves here: the judge modules the browser imports (the import
closure of judge/browser/public_run.py, read from the sources with ast) and each problem's
`public_bundle`. As a last line of defence the build refuses to write a bundle that
contains a distinctive line of a problem's reference or of a known-wrong solution, and a
judge.zip that contains an answer key's text or an editorial's line (a docstring of
judge/quiz/expression.py once quoted a quiz's answer).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# A fixed timestamp keeps judge.zip byte-identical across builds of the same sources.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


class BundleLeakError(RuntimeError):
    """A bundle about to be written contains material that must stay on the server."""


@dataclass(frozen=True, slots=True)
class BuildSummary:
    judge_modules: int
    problems: tuple[str, ...]

    def describe(self) -> str:
        return f"judge.zip ({self.judge_modules} modules), {len(self.problems)} problem bundles"


BROWSER_ENTRY = (
    "browser.public_run"  # the module the Pyodide worker imports (web/frontend/src/worker.js)
)


def browser_modules(judge_dir: Path) -> list[Path]:
    """judge/__init__.py and the modules judge/browser/public_run.py imports, directly or through
    another, at module level or inside a function (either may run in the browser); not
    what only `if TYPE_CHECKING:` imports (that never runs). A module in a room brings the
    room's __init__.py (Python runs it on the way in)."""
    if not (judge_dir / "__init__.py").is_file():
        raise FileNotFoundError(f"{judge_dir} has no __init__.py: is the judge core present?")
    if not _module_path(judge_dir, BROWSER_ENTRY).is_file():
        raise FileNotFoundError(f"{judge_dir} has no {BROWSER_ENTRY}: nothing to zip for")
    seen: set[Path] = set()
    todo = ["", BROWSER_ENTRY]
    while todo:
        name = todo.pop()
        path = _module_path(judge_dir, name)
        if path in seen or not path.is_file():
            continue  # a name that is no module of ours: the standard library's, or a class
        seen.add(path)
        rooms = name.split(".")[:-1]
        todo += [".".join(rooms[: i + 1]) for i in range(len(rooms))]
        package = name if path.name == "__init__.py" else ".".join(rooms)
        todo += _judge_imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), package)
    return sorted(seen)


def _module_path(judge_dir: Path, name: str) -> Path:
    """The file of `judge.<name>` ("" is the package itself): a module, else a room."""
    folder = judge_dir.joinpath(*name.split(".")) if name else judge_dir
    module = folder.with_suffix(".py")
    return module if name and module.is_file() else folder / "__init__.py"


def _judge_imports(tree: ast.Module, package: str) -> list[str]:
    """The modules of the package `judge` that `tree` imports, as names below `judge`
    (candidates: a name that is no file is dropped by the caller); `package` is where the
    importing module sits, for relative imports."""
    found: list[str] = []
    for node in _runnable_nodes(tree):
        if isinstance(node, ast.Import):
            found += [a.name.partition(".")[2] for a in node.names if a.name.startswith("judge.")]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0:
                if not (module == "judge" or module.startswith("judge.")):
                    continue
                base = module.partition(".")[2]
            else:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([module] if module else [])])
            found.append(base)
            # `from judge.x import y`: y may be a module of the room x
            found += [f"{base}.{a.name}" if base else a.name for a in node.names]
    return found


def _runnable_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree`, less the bodies of `if TYPE_CHECKING:`."""
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack += node.orelse
            continue
        stack += ast.iter_child_nodes(node)
    return nodes


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def write_judge_zip(judge_dir: Path, target: Path, secrets: dict[str, str] | None = None) -> int:
    """Zip the browser's judge modules as the importable package `judge`; refuse (before
    writing) a module that holds one of `secrets` (text -> where it comes from)."""
    modules = browser_modules(judge_dir)
    for path in modules:
        text = path.read_text(encoding="utf-8")
        for line, origin in (secrets or {}).items():
            if line in text:
                where = path.relative_to(judge_dir.parent).as_posix()
                raise BundleLeakError(f"judge.zip: {where} holds {origin}: {line!r}")
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in modules:
            name = path.relative_to(judge_dir.parent).as_posix()
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return len(modules)


# Lines shorter than this ("return total", "import math") are too common to be evidence.
MIN_SECRET_LINE = 16
PUBLIC_FILES = (
    "starter.py",
    "cases.py",
    "problem.toml",
    "statement.zh.md",
    "statement.en.md",
    "questions.toml",  # a quiz's questions
    "hints.zh.md",  # hints are public (the page shows them); the bundle carries none
    "hints.en.md",
)
# Never public: a code problem's reference and a quiz's answer key (answers, hidden points,
# explanations), the editorial (it explains the reference: shown only after an AC); and under
# solutions/, known-wrong code and known-wrong answer sheets.
SECRET_FILES = ("reference.py", "answers.toml", "editorial.zh.md", "editorial.en.md")
SECRET_SOLUTIONS = ("solutions/**/*.py", "solutions/**/*.json")


# Never in any served file, the judge's own modules included: what a quiz's answer key says
# (its answers, at least this long: "k" or "causal" are everyday words) and the editorials.
MIN_ANSWER = 8
ANSWER_FILES = ("answers.toml", "editorial.zh.md", "editorial.en.md")


def answer_lines(problem_dir: Path) -> dict[str, str]:
    """The answer key's texts and the editorials' lines that no public file of the problem
    carries -> their file (what judge.zip is checked for)."""
    public = _public_text(problem_dir)
    found: dict[str, str] = {}
    for path in (problem_dir / name for name in ANSWER_FILES):
        if not path.is_file():
            continue
        shortest = MIN_ANSWER if path.suffix == ".toml" else MIN_SECRET_LINE
        for line in _telling_lines(path):
            text = line.strip()
            if len(text) >= shortest and text not in public:
                found.setdefault(text, str(path.relative_to(problem_dir.parent)))
    return found


def _public_text(problem_dir: Path) -> str:
    return "\n".join(
        (problem_dir / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (problem_dir / name).is_file()
    )


def secret_lines(problem_dir: Path) -> dict[str, str]:
    """Distinctive lines of the reference (a quiz's answers.toml) and the known-wrong
    solutions (a quiz's wrong answer sheets) -> their file.

    Text that also appears in a public file is public and not counted: the starter
    shares imports, the signature and scaffolding (sometimes with a comment added).
    """
    public = _public_text(problem_dir)
    secrets: dict[str, str] = {}
    solutions = sorted(p for pattern in SECRET_SOLUTIONS for p in problem_dir.glob(pattern))
    for path in [*(problem_dir / name for name in SECRET_FILES), *solutions]:
        if not path.is_file():
            continue
        for line in _telling_lines(path):
            text = line.strip()
            if len(text) >= MIN_SECRET_LINE and text not in public:
                secrets.setdefault(text, str(path.relative_to(problem_dir.parent)))
    return secrets


def _telling_lines(path: Path) -> list[str]:
    """The file's lines; for data (a quiz's TOML and JSON) also the lines of every string
    value it holds: a file line carries the key and quotes (JSON) or a backslash that
    continues a long string (TOML), and the value alone never matched a bundle."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if path.suffix in (".toml", ".json"):
        import tomllib

        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        lines += [line for value in strings_in(data) for line in value.splitlines()]
    return lines


def strings_in(value: object) -> list[str]:
    """Every string (keys included) inside decoded JSON data."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings_in(v)]]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    return []


def check_no_leak(bundle: dict[str, object], secrets: dict[str, str], where: str) -> None:
    text = "\n".join(strings_in(bundle))
    for line, origin in secrets.items():
        if line in text:
            raise BundleLeakError(f"{where} would contain a line of {origin}: {line!r}")


def page_bundle(problem: Any) -> dict[str, object]:
    """What the problem page loads: the core's public bundle for browser-tier problems;
    for the others (torch), which cannot run in Pyodide, the statement and starter only;
    the hints for both (a handbook page's embed has no server to render them)."""
    from judge.browser.bundle import public_bundle
    from judge.messages import LANGS

    if problem.tier == "browser":
        bundle = public_bundle(problem)
        bundle["runnable"] = True
    else:
        bundle = {
            "problem": problem.summary(),
            "statements": {lang: problem.statement(lang) for lang in LANGS},
            "starter": problem.starter_source(),
            "cases": [],
            "runnable": False,
        }
    inputs = try_inputs(problem)
    if inputs:
        bundle["inputs"] = inputs
    if problem.hints:  # public (the platform's page renders them); a handbook's embed shows them
        bundle["hints"] = [hint.to_dict() for hint in problem.hints]
    return bundle


def try_inputs(problem: Any) -> list[dict[str, object]]:
    """The public cases' names and arguments, what "Try your own input" starts from (the
    timed ones left out: a speed run's input is not a call to try). Empty for a quiz."""
    from judge.kinds.registry import kind_of
    from judge.problem.cases import public_cases

    if not kind_of(problem).runs_code:
        return []
    cases = public_cases(problem)
    return [
        {"name": case.name, "text": args_text(case.args)} for case in cases if case.timed is None
    ]


def args_text(args: object) -> str:
    """Arguments as the JSON text a learner edits: an object one key a line, each value on
    its line. Written here, not by the page, so that 448.0 stays 448.0 (a JavaScript number
    would print it as 448, and the reference would then be given an int)."""
    if not isinstance(args, dict) or not args:
        return json.dumps(args, ensure_ascii=False)
    lines = [f"  {json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
             for key, value in args.items()]  # fmt: skip
    return "{\n" + ",\n".join(lines) + "\n}"


def write_problem_bundles(problems_dir: Path, target: Path) -> tuple[str, ...]:
    """Write one JSON file per problem plus index.json (slug -> version)."""
    # Imported here so that zipping the judge does not depend on the problem API.
    from judge.problem.problemset import ProblemSet

    target.mkdir(parents=True, exist_ok=True)
    index: dict[str, str] = {}
    for problem in ProblemSet(problems_dir).all():
        bundle = page_bundle(problem)
        check_no_leak(bundle, secret_lines(problem.path), f"problems/{problem.slug}.json")
        # Never sort the keys: a case's expected dict is compared, and its first wrong field
        # reported, in the reference's order, which is the statement's.
        payload = json.dumps(bundle, ensure_ascii=False)
        (target / f"{problem.slug}.json").write_text(payload, encoding="utf-8")
        index[problem.slug] = str(problem.version)
    (target / "index.json").write_text(json.dumps(index, sort_keys=True), encoding="utf-8")
    return tuple(sorted(index))


def build(out: Path, judge_dir: Path, problems_dir: Path) -> BuildSummary:
    out.mkdir(parents=True, exist_ok=True)
    answers: dict[str, str] = {}
    for folder in sorted(p for p in problems_dir.iterdir() if (p / "problem.toml").is_file()):
        answers.update(answer_lines(folder))
    modules = write_judge_zip(judge_dir, out / "judge.zip", answers)
    problems = write_problem_bundles(problems_dir, out / "problems")
    return BuildSummary(judge_modules=modules, problems=problems)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the dist folder to write into")
    parser.add_argument("--judge", type=Path, default=ROOT / "judge")
    parser.add_argument("--problems", type=Path, default=ROOT / "problems")
    args = parser.parse_args(argv)
    try:
        summary = build(args.out, args.judge, args.problems)
    except (BundleLeakError, FileNotFoundError) as error:
        print(f"build_bundles: {error}", file=sys.stderr)
        return 1
    print(summary.describe())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
