"""Right solutions are never refused, idle and loaded: every torch problem's reference and
accepted solutions, and the wrong ones a CPU rule must always stop, judged N times each in
the warm sandbox on fresh secret seeds, first on an idle machine, then beside two busy
loops (this script starts and stops them).

    python bench/bench_honest_verdicts.py [--n 5] [--problems greedy-generate,batched-decode]

It prints one row per (problem, solution, load): the verdicts it got and the slowest run's
wall time. A row of a right solution with anything but AC, or of a CPU-rule wrong solution
with anything but TLE, is marked. Exit 1 if any row is marked.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import secrets
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.verdict import Verdict
from runner.api import Runner

# The wrong solutions whose only fault is breaking a CPU rule: they must be TLE every time.
RULE_BREAKERS = {
    "greedy-generate": ("recompute_every_step.py",),
    "batched-decode": ("one_prompt_at_a_time.py",),
}


def _spin() -> None:
    while True:
        pass


def solutions(problem: ProblemSpec) -> list[tuple[str, str, Verdict]]:
    """(name, source, the verdict it must get) for the solutions this bench judges."""
    out = [("reference.py", problem.reference_source(), Verdict.AC)]
    for path in problem.accepted_solutions():
        out.append((f"accepted/{path.name}", path.read_text(encoding="utf-8"), Verdict.AC))
    for name in RULE_BREAKERS.get(problem.slug, ()):
        path = problem.path / "solutions" / "wrong" / name
        out.append((f"wrong/{name}", path.read_text(encoding="utf-8"), Verdict.TLE))
    return out


def run_rows(runner: Runner, problems: list[ProblemSpec], n: int, load: str) -> list[tuple]:  # type: ignore[type-arg]
    rows = []
    for problem in problems:
        for name, source, wanted in solutions(problem):
            verdicts: Counter[str] = Counter()
            slowest = 0.0
            for _ in range(n):
                start = time.perf_counter()
                report = runner.judge(problem, source, seed=secrets.randbits(62))
                slowest = max(slowest, time.perf_counter() - start)
                verdicts[report.verdict.value] += 1
            ok = verdicts[wanted.value] == n
            rows.append((problem.slug, name, load, dict(verdicts), slowest, wanted.value, ok))
            print_row(rows[-1], flush=True)
    return rows


def print_row(row: tuple, flush: bool = False) -> None:  # type: ignore[type-arg]
    slug, name, load, verdicts, slowest, wanted, ok = row
    got = ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))
    mark = "" if ok else f"  <-- every run must be {wanted}"
    print(f"{slug:<18} {name:<44} {load:<7} {got:<12} {slowest:>7.1f}s{mark}", flush=flush)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="runs per solution and load")
    parser.add_argument("--problems", default="", help="comma-separated slugs (default: torch)")
    args = parser.parse_args(argv)
    every = ProblemSet()
    chosen = [s for s in args.problems.split(",") if s]
    problems = [every.get(s) for s in chosen] or [p for p in every.all() if p.tier == "torch"]
    print(f"machine: {os.cpu_count()} cores, {_cpu_model()}; {args.n} runs each, fresh seeds")
    print(f"{'problem':<18} {'solution':<44} {'load':<7} {'verdicts':<12} {'slowest':>8}")
    rows = []
    with Runner(pool_size=1) as runner:
        rows += run_rows(runner, problems, args.n, "idle")
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(2)]
        for p in spinners:
            p.start()
        try:
            rows += run_rows(runner, problems, args.n, "loaded")
        finally:
            for p in spinners:
                p.kill()
                p.join()
    bad = [r for r in rows if not r[-1]]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} rows got their verdict every time")
    return 1 if bad else 0


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())
