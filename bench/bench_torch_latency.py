"""Submit to verdict on every torch-tier problem: a fresh hidden seed against a ready one,
side by side in one run, with the wait split into its phases.

Every submission has a hidden seed of its own, so without a ready seed the judge first
builds that seed's cases and runs the reference on them (`reference`), measures the
reference's CPU time once per problem version for a CPU-rule problem (`calib`), and only
then runs the submission. A seed from the stock (runner/seedstock.py) was prepared while
the judge was idle: its submission waits for the submission's own run alone. That run is
split at timestamps taken in this process:

- fork: the launcher's `launch` call (the warm worker's forks into the job's namespaces,
  the handshake, the cgroup);
- start: the launched job until it acknowledged the load (limits and filter applied, the
  submission imported; for a hosted problem the trusted driver got ready beside it);
- setup+1st: the first case, including the model's set-up;
- cases: the other correctness cases;
- timed: the warm-up and the timed repetitions, each after the reference timed beside it
  (judge/run/pacer.py); speed problems only;
- report: the last case until the report is written.

`1st` is when the first case's verdict reaches the caller, counted from the start. The queue
is not in this path (an idle embedded queue adds no wait): bench_torch_latency_web.py adds
it, with the web layer around.

Both rows go through the same warm `runner.api.Runner` that `judge serve` uses with the
sandbox. Each problem is judged `--n` times per row with the reference solution, each time
with a new seed; medians are printed.

    python bench/bench_torch_latency.py [--n 3] [--problems greedy-generate,kv-cache]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.kinds.registry import kind_of
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import TrustedInputs
from judge.run.phase import Phase, Stage
from judge.run.session import Session
from runner.api import Runner
from runner.seedstock import draw_seed

COLUMNS = ("reference", "calib", "fork", "start", "setup+1st", "cases", "timed", "report")
AFTER_CASES = (Stage.WARM_UP, Stage.TIMED, Stage.REPORTING)
SHOWN = (*COLUMNS, "total", "1st")


@dataclass
class Marks:
    """perf_counter stamps of one submission's run, in the order they happen."""

    events: list[tuple[float, str]] = field(default_factory=list)

    def mark(self, what: str) -> None:
        self.events.append((time.perf_counter(), what))

    def first(self, what: str, after: float = 0.0) -> float | None:
        return next((t for t, w in self.events if w == what and t >= after), None)


@contextmanager
def marked(runner: Runner, marks: Marks) -> Iterator[None]:
    """The job's launch and its load's answer, stamped; each hook calls the original."""
    launch = runner.launcher.launch
    exchange = Session._exchange

    def launch_marked(*args: Any, **kwargs: Any) -> Any:
        marks.mark("launch")
        try:
            return launch(*args, **kwargs)
        finally:
            marks.mark("launched")

    def exchange_marked(self: Session, *args: Any, **kwargs: Any) -> Any:
        got = exchange(self, *args, **kwargs)
        if not getattr(self, "_bench_loaded", False):  # a session's first exchange: the load
            self._bench_loaded = True  # type: ignore[attr-defined]
            marks.mark("loaded")
        return got

    runner.launcher.launch = launch_marked  # type: ignore[method-assign]
    Session._exchange = exchange_marked  # type: ignore[method-assign]
    try:
        yield
    finally:
        Session._exchange = exchange  # type: ignore[method-assign]
        del runner.launcher.launch  # the class's own again


def judge_once(runner: Runner, problem: ProblemSpec, seed: int) -> dict[str, float]:
    """The Runner's own path (runner.api.Runner.judge), timed phase by phase (seconds)."""
    marks = Marks()
    start = time.perf_counter()
    with runner.gate.busy(), marked(runner, marks):
        entry = runner.cache.entry(problem, seed)
        marks.mark("calibrating")
        cpu = runner.cache.cpu(problem, seed, runner.launcher)
        marks.mark("judging")

        def progress(phase: Phase) -> None:
            if phase.done == 1:
                marks.mark("first case")
            if phase.stage in AFTER_CASES:
                marks.mark("cases done")
            if phase.stage is Stage.REPORTING:
                marks.mark("reporting")

        trusted = TrustedInputs(entry.cases, entry.expected, entry.budget, cpu)
        report = kind_of(problem).judge(
            problem,
            problem.reference_source(),
            seed=seed,
            launcher=runner.launcher,
            progress=progress,
            trusted=trusted,
        )
    end = time.perf_counter()
    judging = marks.first("judging") or end
    launch = marks.first("launch", judging) or judging
    launched = marks.first("launched", launch) or launch
    loaded = marks.first("loaded", launched) or launched
    first = marks.first("first case", loaded) or loaded
    cases_done = marks.first("cases done", loaded) or first
    reporting = marks.first("reporting", loaded) or cases_done
    calibrating = marks.first("calibrating") or start
    phases = {
        "reference": calibrating - start,
        "calib": judging - calibrating,
        "fork": launched - launch,
        "start": loaded - launched,
        "setup+1st": first - loaded,
        "cases": cases_done - first,
        "timed": reporting - cases_done,
        # Everything else the judging did: the report, and the gap between the judging's
        # start and the job's launch (the trusted driver or pacer started first).
        "report": end - reporting + (launch - judging),
        "total": end - start,
        "1st": first - start,
    }
    phases["AC"] = float(report.verdict.value == "AC")
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


def row(label: str, runs: list[dict[str, float]]) -> str:
    cells = [f"{median([r[c] for r in runs]):>{max(len(c), 5)}.2f}" for c in SHOWN]
    return f"{label:26} " + " ".join(cells)


def header() -> str:
    names = " ".join(f"{c:>{max(len(c), 5)}}" for c in SHOWN)
    return f"{'problem':26} {names}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="submissions per problem per row")
    parser.add_argument("--problems", default="", help="comma-separated slugs (default: torch)")
    args = parser.parse_args()
    problems = ProblemSet(None)
    wanted = [s for s in args.problems.split(",") if s]
    chosen = [problems.get(s) for s in wanted] or [
        p for p in problems.all() if p.tier == "torch" and kind_of(p).runs_code
    ]
    print(header())
    print("-" * len(header()))
    with Runner(pool_size=2, ready_seeds=1) as runner:
        for problem in chosen:
            fresh = [judge_once(runner, problem, draw_seed()) for _ in range(args.n)]
            ready = [
                judge_once(runner, problem, ready_seed(runner, problem)) for _ in range(args.n)
            ]
            print(row(f"{problem.slug} fresh", fresh), flush=True)
            print(row(f"{problem.slug} ready", ready), flush=True)
            if not all(r["AC"] for r in fresh + ready):
                print("  the reference was not AC on every seed")
    print(
        "seconds, medians; `fresh`: a new hidden seed, `ready`: one from the stock; "
        "`1st` is the first case's verdict, from the start"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
