"""Trusted children started cold vs forked from the trusted worker, side by side in one run.

A capstone stage's driver (`[driver] side = "trusted"`) and a speed problem's paced
reference run in a trusted child beside the sandboxed job (runner/trusted_child.py). Each
column judges the same problems' references in the sandbox, through a warm SandboxLauncher
whose only difference is where its trusted children come from:

  cold    a fresh `python -I` per child, importing torch and reading its checkpoint
  forked  forked from the launcher's trusted worker, which has both already

Latency is submission to verdict as the caller sees it, with the expected answers computed
once beforehand (both columns share them) and one judging per column first, so the trusted
worker's own start is out of the `forked` column (it is paid once per launcher). The
columns alternate submission by submission, so load drifts hit both alike.

    python bench/bench_trusted_child.py [--n 3] [--problems serve-static,decode-throughput]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_before_after import cpu_model

from judge.errors import UnknownProblem
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher
from runner.refcache import ReferenceCache

DEFAULT = "serve-static,serve-continuous,serve-paged,serve-engine,decode-throughput"
COLUMNS = ("cold", "forked")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="judgings per problem per column")
    parser.add_argument("--problems", default=DEFAULT, help="comma-separated slugs")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    problems = ProblemSet()
    try:
        chosen = [problems.get(slug) for slug in args.problems.split(",") if slug]
    except UnknownProblem as exc:
        parser.error(str(exc))
    launchers = {
        "cold": SandboxLauncher(pool_size=1, trusted_worker=False),
        "forked": SandboxLauncher(pool_size=1, trusted_worker=True),
    }
    cache = ReferenceCache()
    rows = []
    try:
        for problem in chosen:
            expected = cache.expected(problem, None)
            source = problem.reference_source()
            times: dict[str, list[float]] = {name: [] for name in COLUMNS}
            for round_ in range(args.n + 1):  # round 0 warms both columns up, untimed
                for name in COLUMNS if round_ % 2 else reversed(COLUMNS):
                    started = time.perf_counter()
                    report = judge_source(
                        problem, source, launcher=launchers[name], expected=expected
                    )
                    seconds = time.perf_counter() - started
                    if report.verdict is not Verdict.AC:
                        print(f"{problem.slug} ({name}): {report.verdict.value}", file=sys.stderr)
                        return 1
                    if round_:
                        times[name].append(seconds)
            rows.append((problem.slug, times))
    finally:
        for launcher in launchers.values():
            launcher.close()
    print_table(args.n, rows)
    return 0


def print_table(n: int, rows: list[tuple[str, dict[str, list[float]]]]) -> None:
    print(f"the reference judged in the sandbox, {n} times per column, medians")
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, load {os.getloadavg()[0]:.1f}")
    head = f"{'problem':<18} {'cold':>9} {'forked':>9} {'forked / cold':>14}"
    print(head)
    print("-" * len(head))
    for slug, times in rows:
        cold, forked = (statistics.median(times[name]) for name in COLUMNS)
        print(f"{slug:<18} {cold:>8.2f}s {forked:>8.2f}s {forked / cold:>14.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
