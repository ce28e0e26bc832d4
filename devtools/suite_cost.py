"""Where the test suite's time goes: a JUnit XML report (pytest --junitxml) summed by kind of
work and by file, printed as Markdown tables (docs/TESTING.md keeps the figures).

    python -m devtools.suite_cost build/test-report.xml [--files 25] [--wall SECONDS]

A test's time is its set-up, call and tear-down together, as pytest reports it; with
several xdist workers the sum is more than the wall time (`--wall` prints the ratio).
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

# (path prefix, kind): the first that matches names a test file's kind of work.
KINDS = (
    ("tests/web/e2e/", "browser e2e (Chromium)"),
    ("tests/cluster/", "cluster (Celery, Redis, PostgreSQL)"),
    ("tests/web/test_local_cluster.py", "cluster (Celery, Redis, PostgreSQL)"),
    ("tests/bench/test_bench_cluster.py", "cluster (Celery, Redis, PostgreSQL)"),
    ("tests/runner/test_problems_in_sandbox.py", "problems checked in the sandbox"),
    ("tests/runner/", "runner and sandbox walls"),
    ("tests/problems/test_pyodide", "problems in Pyodide (Node)"),
    ("tests/problems/", "problems checked locally"),
    ("tests/web/", "web app (in-process server)"),
    ("tests/bench/", "benchmarks' smoke runs"),
    ("tests/mini_llm/", "mini_llm against transformers"),
    ("tests/judge/", "judge core"),
    ("tests/", "repository rules (docs, imports, vocabulary)"),
)


def kind_of(path: str) -> str:
    return next(kind for prefix, kind in KINDS if path.startswith(prefix))


def test_file(classname: str) -> str:
    """tests.web.test_x.TestY -> tests/web/test_x.py"""
    parts = classname.split(".")
    for i, part in enumerate(parts):
        if part.startswith("test_"):
            return "/".join(parts[: i + 1]) + ".py"
    return "/".join(parts) + ".py"


def read(report: Path) -> tuple[dict[str, float], Counter[str]]:
    """Seconds and test counts per file."""
    seconds: dict[str, float] = {}
    counts: Counter[str] = Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        path = test_file(case.get("classname", ""))
        seconds[path] = seconds.get(path, 0.0) + float(case.get("time", 0) or 0)
        counts[path] += 1
    return seconds, counts


def table(seconds: dict[str, float], counts: Counter[str], rows: int, wall: float | None) -> str:
    total = sum(seconds.values())
    by_kind: dict[str, float] = {}
    kind_counts: Counter[str] = Counter()
    for path, spent in seconds.items():
        by_kind[kind_of(path)] = by_kind.get(kind_of(path), 0.0) + spent
        kind_counts[kind_of(path)] += counts[path]
    lines = ["| kind of work | tests | seconds | share |", "|---|---:|---:|---:|"]
    for kind, spent in sorted(by_kind.items(), key=lambda item: -item[1]):
        lines.append(f"| {kind} | {kind_counts[kind]} | {spent:.0f} | {spent / total:.0%} |")
    lines.append(f"| all | {sum(counts.values())} | {total:.0f} | 100% |")
    if wall:
        lines.append(f"\nwall {wall:.0f} s: the tests' seconds are {total / wall:.2f}x the wall")
    lines += ["", "| file | tests | seconds |", "|---|---:|---:|"]
    for path, spent in sorted(seconds.items(), key=lambda item: -item[1])[:rows]:
        lines.append(f"| `{path}` | {counts[path]} | {spent:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--files", type=int, default=25, help="how many files to list")
    parser.add_argument("--wall", type=float, default=None, help="the run's wall time (s)")
    args = parser.parse_args(argv)
    if not args.report.is_file():
        print(f"suite_cost: no report at {args.report}", file=sys.stderr)
        return 2
    try:
        seconds, counts = read(args.report)
    except ET.ParseError as exc:
        print(f"suite_cost: {args.report} is not JUnit XML: {exc}", file=sys.stderr)
        return 2
    print(table(seconds, counts, args.files, args.wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
