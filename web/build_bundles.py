"""Write the public material the browser loads: judge.zip and problems/<slug>.json.

Run as `python -m web.build_bundles --out web/static/dist` (the front-end build does).
Only public material leaves here: the judge package's own modules and each problem's
`public_bundle`. As a last line of defence the build refuses to write a bundle that
contains a distinctive line of a problem's reference or of a known-wrong solution.
"""

from __future__ import annotations

import argparse
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


def write_judge_zip(judge_dir: Path, target: Path) -> int:
    """Zip judge/*.py (no subfolders, no caches) as the importable package `judge`."""
    modules = sorted(judge_dir.glob("*.py"))
    if not any(path.name == "__init__.py" for path in modules):
        raise FileNotFoundError(f"{judge_dir} has no __init__.py: is the judge core present?")
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in modules:
            info = zipfile.ZipInfo(f"judge/{path.name}", date_time=ZIP_DATE)
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


def secret_lines(problem_dir: Path) -> dict[str, str]:
    """Distinctive lines of the reference (a quiz's answers.toml) and the known-wrong
    solutions (a quiz's wrong answer sheets) -> their file.

    Text that also appears in a public file is public and not counted: the starter
    shares imports, the signature and scaffolding (sometimes with a comment added).
    """
    public = "\n".join(
        (problem_dir / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (problem_dir / name).is_file()
    )
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
    for the others (torch), which cannot run in Pyodide, the statement and starter only."""
    from judge.bundle import public_bundle
    from judge.spec import LANGS

    if problem.tier == "browser":
        bundle = public_bundle(problem)
        bundle["runnable"] = True
        return bundle
    return {
        "problem": problem.summary(),
        "statements": {lang: problem.statement(lang) for lang in LANGS},
        "starter": problem.starter_source(),
        "cases": [],
        "runnable": False,
    }


def write_problem_bundles(problems_dir: Path, target: Path) -> tuple[str, ...]:
    """Write one JSON file per problem plus index.json (slug -> version)."""
    # Imported here so that zipping the judge does not depend on the problem API.
    from judge.problemset import ProblemSet

    target.mkdir(parents=True, exist_ok=True)
    index: dict[str, str] = {}
    for problem in ProblemSet(problems_dir).all():
        bundle = page_bundle(problem)
        check_no_leak(bundle, secret_lines(problem.path), f"problems/{problem.slug}.json")
        payload = json.dumps(bundle, ensure_ascii=False, sort_keys=True)
        (target / f"{problem.slug}.json").write_text(payload, encoding="utf-8")
        index[problem.slug] = str(problem.version)
    (target / "index.json").write_text(json.dumps(index, sort_keys=True), encoding="utf-8")
    return tuple(sorted(index))


def build(out: Path, judge_dir: Path, problems_dir: Path) -> BuildSummary:
    out.mkdir(parents=True, exist_ok=True)
    modules = write_judge_zip(judge_dir, out / "judge.zip")
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
