"""Warm sandboxed workers vs a cold process per submission, side by side in one run.

The same N submissions to a torch-tier problem (the reference and the known-wrong
solutions, in turn) are judged three ways:

  warm        Runner: warm bubblewrap workers with torch imported, a fork per job
  cold        the same sandbox, but a fresh worker (bubblewrap + python + import torch) per job
  local-cold  the core's LocalLauncher: a plain child process per job, no sandbox at all

Latency is submission to verdict as the caller sees it. Overhead is latency minus the
cases' own time as the parent measured it (sum of per-case times). Every mode uses the
same cached expected observations, so the reference's cost is out of all three.
Latencies are taken one submission at a time; throughput with two submissions in
flight (the machine has two cores).

    python bench/bench_runner.py [--n 20] [--problem attention-decode]
    python bench/bench_runner.py --torch-tier [--n 6]   # warm overhead on every torch problem

`--torch-tier` judges every torch-tier problem (the real-model ones included) through the
warm Runner only and prints, per problem, the overhead beyond the cases' own time against
the 50 ms goal (issue 26; it was 150 ms before), and the submissions per second with two in
flight (issue 39 asks for that row on every real-model problem, not only attention-decode).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.grading.report import Report
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import judge_source
from judge.run.launch import LocalLauncher
from runner.api import Runner
from runner.launchers.sandbox import SandboxLauncher
from runner.refcache import ReferenceCache

Judge = Callable[[str], Report]


def submissions(problem: ProblemSpec, n: int) -> list[str]:
    sources = [problem.reference_source()]
    sources += [w.path.read_text(encoding="utf-8") for w in problem.wrong_solutions()]
    return [sources[i % len(sources)] for i in range(n)]


def measure(judge: Judge, sources: list[str]) -> tuple[list[float], list[float]]:
    """Latency and overhead (seconds) per submission, one at a time."""
    latencies, overheads = [], []
    for source in sources:
        start = time.perf_counter()
        report = judge(source)
        latency = time.perf_counter() - start
        if report.verdict.value == "IE":
            raise RuntimeError(f"internal error while benchmarking: {report.internal_error}")
        latencies.append(latency)
        overheads.append(latency - sum(c.time_ms for c in report.cases) / 1000)
    return latencies, overheads


def throughput(judge: Judge, sources: list[str], workers: int = 2) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(judge, sources))
    return len(sources) / (time.perf_counter() - start)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


OVERHEAD_GOAL_S = 0.050  # warm runner overhead per torch submission, beyond its cases' time


def torch_tier(n: int) -> int:
    """Warm overhead and throughput per torch-tier problem: n submissions each (reference
    and wrong ones), one at a time, then the same n two at a time."""
    problems = [p for p in ProblemSet().all() if p.tier == "torch"]
    runner = Runner(pool_size=2)
    rows = []
    try:
        for problem in problems:
            sources = submissions(problem, n)
            runner.judge(problem, sources[0])  # fills the reference and calibration caches
            judge = lambda s, p=problem: runner.judge(p, s)  # noqa: E731
            latencies, overheads = measure(judge, sources)
            rows.append((problem.slug, latencies, overheads, throughput(judge, sources)))
    finally:
        runner.close()
    print(
        f"warm Runner, {n} submissions per problem; machine: {os.cpu_count()} cores, {_cpu_model()}"
    )
    head = (
        f"{'problem':<18} {'p50 latency':>12} {'p50 overhead':>13} {'p99 overhead':>13} "
        f"{'goal 50 ms':>12} {'subs/s (2 in flight)':>21}"
    )
    print(head)
    print("-" * len(head))
    for slug, lat, over, rate in rows:
        ok = "met" if pct(over, 0.5) <= OVERHEAD_GOAL_S else "MISSED"
        print(
            f"{slug:<18} {pct(lat, 0.5) * 1000:>10.0f}ms {pct(over, 0.5) * 1000:>11.0f}ms "
            f"{pct(over, 0.99) * 1000:>11.0f}ms {ok:>12} {rate:>21.2f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="submissions per mode (default 20)")
    parser.add_argument("--problem", default="attention-decode")
    parser.add_argument("--torch-tier", action="store_true", help="warm overhead per torch problem")
    args = parser.parse_args(argv)
    if args.torch_tier:
        return torch_tier(args.n)
    problem = ProblemSet().get(args.problem)
    sources = submissions(problem, args.n)
    cache = ReferenceCache()
    expected = cache.expected(problem, None)
    workdir = tempfile.mkdtemp(prefix="bench-runner-")

    runner = Runner(pool_size=2)
    cold = SandboxLauncher(pool_size=0)
    local = LocalLauncher(Path(workdir))
    modes: dict[str, Judge] = {
        "warm": lambda s: runner.judge(problem, s),
        "cold": lambda s: judge_source(problem, s, launcher=cold, expected=expected),
        "local-cold": lambda s: judge_source(problem, s, launcher=local, expected=expected),
    }
    rows = []
    try:
        runner.judge(problem, sources[0])  # fills the reference cache
        for name, judge in modes.items():
            latencies, overheads = measure(judge, sources)
            rate = throughput(judge, sources)
            rows.append((name, latencies, overheads, rate))
    finally:
        runner.close()
        cold.close()
    print_table(problem, args.n, rows)
    os.rmdir(workdir)
    return 0


def print_table(problem: ProblemSpec, n: int, rows: list[tuple]) -> None:  # type: ignore[type-arg]
    cpu = _cpu_model()
    print(f"problem {problem.slug} ({problem.tier} tier), {n} submissions per mode")
    print(f"machine: {os.cpu_count()} cores, {cpu}")
    head = (
        f"{'mode':<11} {'p50 latency':>12} {'p99 latency':>12} {'p50 overhead':>13} "
        f"{'p99 overhead':>13} {'subs/s (2 in flight)':>21}"
    )
    print(head)
    print("-" * len(head))
    for name, lat, over, rate in rows:
        print(
            f"{name:<11} {pct(lat, 0.5) * 1000:>10.0f}ms {pct(lat, 0.99) * 1000:>10.0f}ms "
            f"{pct(over, 0.5) * 1000:>11.0f}ms {pct(over, 0.99) * 1000:>11.0f}ms {rate:>21.2f}"
        )
    by_name = {name: over for name, _, over, _ in rows}
    ratio = statistics.median(by_name["cold"]) / statistics.median(by_name["warm"])
    print(f"\nmedian overhead, cold / warm: {ratio:.1f}x")


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())
