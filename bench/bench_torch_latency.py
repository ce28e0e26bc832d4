"""Submit to verdict on every torch-tier problem: a fresh hidden seed against a ready one,
side by side in one run, with the wait split into its phases.

Every submission has a hidden seed of its own, so without a ready seed the judge first
builds that seed's cases and runs the reference on them (`cases+reference`), measures the
reference's CPU time once per problem version for a CPU-rule problem (`calibration`), and
only then runs the submission (`judge`). A seed from the stock (runner/seedstock.py) was
prepared while the judge was idle: its submission waits for `judge` alone. `first
progress` is when the first case's verdict reaches the caller, counted from the start.

Both columns go through the same warm `runner.api.Runner` that `judge serve` uses with the
sandbox (the judging path without the web layer: on an idle embedded queue the queue
adds no wait). Each problem is judged `--n` times per column with the reference solution,
each time with a new seed; medians are printed.

    python bench/bench_torch_latency.py [--n 3] [--problems greedy-generate,kv-cache]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.kinds.registry import kind_of
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import TrustedInputs
from judge.run.phase import Phase
from runner.api import Runner
from runner.seedstock import draw_seed


@dataclass
class Phases:
    """Seconds of one submission, by phase."""

    reference: float = 0.0
    calibration: float = 0.0
    judge: float = 0.0
    first_progress: float = 0.0
    verdicts: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return self.reference + self.calibration + self.judge


def judge_once(runner: Runner, problem: ProblemSpec, seed: int) -> Phases:
    """The Runner's own path (runner.api.Runner.judge), timed phase by phase."""
    phases = Phases()
    start = time.perf_counter()
    with runner.gate.busy():
        entry = runner.cache.entry(problem, seed)
        phases.reference = time.perf_counter() - start
        mark = time.perf_counter()
        cpu = runner.cache.cpu(problem, seed, runner.launcher)
        phases.calibration = time.perf_counter() - mark
        mark = time.perf_counter()
        first: list[float] = []

        def progress(phase: Phase) -> None:
            if phase.done and not first:  # the first case's verdict is in
                first.append(time.perf_counter())

        trusted = TrustedInputs(entry.cases, entry.expected, entry.budget, cpu)
        report = kind_of(problem).judge(
            problem,
            problem.reference_source(),
            seed=seed,
            launcher=runner.launcher,
            progress=progress,
            trusted=trusted,
        )
        phases.judge = time.perf_counter() - mark
    phases.first_progress = (first[0] if first else time.perf_counter()) - start
    phases.verdicts.append(report.verdict.value)
    return phases


def ready_seed(runner: Runner, problem: ProblemSpec, timeout: float = 600.0) -> int:
    """A seed from the stock, waiting (idle) until one is ready."""
    deadline = time.monotonic() + timeout
    while True:
        seed = runner.ready_seed(problem)
        if seed is not None:
            return seed
        if time.monotonic() > deadline:
            raise SystemExit(f"no seed of {problem.slug} was ready after {timeout:.0f} s")
        while runner.stock.ready(problem) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="submissions per problem per column")
    parser.add_argument("--problems", default="", help="comma-separated slugs (default: torch)")
    args = parser.parse_args()
    problems = ProblemSet(None)
    wanted = [s for s in args.problems.split(",") if s]
    chosen = [problems.get(s) for s in wanted] or [
        p for p in problems.all() if p.tier == "torch" and kind_of(p).runs_code
    ]
    header = (
        f"{'problem':20} {'fresh: ref':>10} {'calib':>6} {'judge':>6} {'total':>6} "
        f"{'1st':>5} | {'ready: judge':>12} {'1st':>5} | {'ratio':>5}"
    )
    print(header)
    print("-" * len(header))
    with Runner(pool_size=2, ready_seeds=1) as runner:
        for problem in chosen:
            fresh = [judge_once(runner, problem, draw_seed()) for _ in range(args.n)]
            ready = [
                judge_once(runner, problem, ready_seed(runner, problem)) for _ in range(args.n)
            ]
            f_total = median([p.total for p in fresh])
            r_total = median([p.total for p in ready])
            print(
                f"{problem.slug:20} {median([p.reference for p in fresh]):10.2f} "
                f"{median([p.calibration for p in fresh]):6.2f} "
                f"{median([p.judge for p in fresh]):6.2f} {f_total:6.2f} "
                f"{median([p.first_progress for p in fresh]):5.2f} | "
                f"{r_total:12.2f} {median([p.first_progress for p in ready]):5.2f} | "
                f"{f_total / r_total:5.1f}",
                flush=True,
            )
            verdicts = {v for p in fresh + ready for v in p.verdicts}
            if verdicts != {"AC"}:
                print(f"  the reference was not AC on every seed: {sorted(verdicts)}")
    print("seconds, medians; `1st` is first progress; ratio = fresh total / ready total")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
