"""Write the public material the browser loads: judge.zip and problems/<slug>.json.

Run as `python -m web.build_bundles --out web/static/dist` (the front-end build does).
Only public material leaves here: the judge package's own modules and each problem's
`public_bundle`. As a last line of defence the build refuses to write anything that
contains a problem's reference source or one of its known-wrong solutions.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

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


def secret_texts(problem_dir: Path) -> list[tuple[str, str]]:
    """(label, text) for every file of a problem that must never reach a browser."""
    paths = [problem_dir / "reference.py", *sorted(problem_dir.glob("solutions/**/*.py"))]
    texts = []
    for path in paths:
        if path.is_file():
            text = path.read_text(encoding="utf-8").strip()
            if text:
                texts.append((str(path.relative_to(problem_dir.parent)), text))
    return texts


def check_no_leak(payload: str, secrets: list[tuple[str, str]], where: str) -> None:
    for label, text in secrets:
        if text in payload:
            raise BundleLeakError(f"{where} would contain the text of {label}")


def write_problem_bundles(problems_dir: Path, target: Path) -> tuple[str, ...]:
    """Write one JSON file per problem plus index.json (slug -> version)."""
    # Imported here so that zipping the judge does not depend on the problem API.
    from judge.bundle import public_bundle
    from judge.problemset import ProblemSet

    target.mkdir(parents=True, exist_ok=True)
    index: dict[str, str] = {}
    for problem in ProblemSet(problems_dir).all():
        bundle = public_bundle(problem)
        slug = str(bundle["slug"])
        payload = json.dumps(bundle, ensure_ascii=False, sort_keys=True)
        check_no_leak(payload, secret_texts(problems_dir / slug), f"problems/{slug}.json")
        (target / f"{slug}.json").write_text(payload, encoding="utf-8")
        index[slug] = str(bundle.get("version", ""))
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
