"""A speed problem's reference, judged as the server judges it, idle and beside busy loops.

Each run is a whole judged submission through the warm Runner (the sandbox, one torch
thread per job, the models preloaded): a warm-up and the timed, checked repetitions
(decode-throughput: nine batches; serve-engine: five traces), each timed in turn with the
reference (judge/run/pacer.py). The table shows, per run, the score
that is recorded (the median ratio to the reference, said at the reference's best rate),
the ratio itself and its spread, and the raw rate (the median of the submission's own
repetitions, what was scored before pairing). The same runs are then repeated with
`--busy` processes spinning beside them (default two, as many as this machine's cores
here), and the last lines compare the two halves: how far the recorded score and the raw
rate moved between an idle machine and a busy one.

    python bench/bench_speed_reference.py [--problem decode-throughput] [--runs 3] [--busy 2]
                                          [--solution FILE]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.grading.report import Report
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.problem.speed_spec import SpeedState
from runner.api import Runner


def work_per_repetition(problem: ProblemSpec) -> float:
    """The work (tokens) of one timed repetition, as the problem's own cases declare it."""
    from judge.problem.cases import build_cases

    return next(c.timed.work for c in build_cases(problem, None) if c.timed is not None)


def _spin() -> None:
    while True:
        pass


class Row:
    def __init__(self, phase: str, report: Report, work: float) -> None:
        speed = report.speed
        if speed is None:
            raise SystemExit(f"not scored: {report.verdict.value} {report.first_failure}")
        self.phase = phase
        self.recorded = speed.value
        self.state = speed.state
        self.relative = speed.relative or 0.0
        self.spread = speed.relative_spread or 0.0
        times = [c.time_ms for c in report.cases if "timed-" in c.name]
        self.raw = statistics.median(work / (t / 1000) for t in times)

    def line(self, i: int) -> str:
        state = "" if self.state is SpeedState.SCORED else " (not recorded: unsteady)"
        return (
            f"{self.phase:>6} {i:>3} {self.recorded:>10.1f} {self.relative:>8.3f} "
            f"{100 * self.spread:>8.1f}% {self.raw:>10.1f}{state}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="decode-throughput", help="a speed problem's slug")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy", type=int, default=2, help="busy loops in the second half")
    parser.add_argument("--solution", type=Path, help="judge this file instead of the reference")
    args = parser.parse_args(argv)
    problem = ProblemSet().get(args.problem)
    if problem.speed is None:
        parser.error(f"{args.problem} is not a speed problem")
    work = work_per_repetition(problem)
    source = args.solution.read_text() if args.solution else problem.reference_source()
    rows: list[Row] = []
    with Runner(pool_size=1) as runner:
        for _ in range(args.runs):
            rows.append(Row("idle", runner.judge(problem, source), work))
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
        for spinner in spinners:
            spinner.start()
        try:
            for _ in range(args.runs):
                rows.append(Row("busy", runner.judge(problem, source), work))
        finally:
            for spinner in spinners:
                spinner.kill()
    print(
        f"{args.problem}, {args.runs} judged runs idle, "
        f"then {args.runs} beside {args.busy} busy loops"
    )
    head = f"{'phase':>6} {'run':>3} {'recorded':>10} {'ratio':>8} {'spread':>9} {'raw rate':>10}"
    print(head)
    print("-" * len(head))
    for i, row in enumerate(rows, 1):
        print(row.line(i))
    idle = [r for r in rows if r.phase == "idle"]
    busy = [r for r in rows if r.phase == "busy"]

    def moved(field: str) -> float:
        a = statistics.median(getattr(r, field) for r in idle)
        b = statistics.median(getattr(r, field) for r in busy)
        return 100 * (b - a) / a

    print(
        f"\nunit tokens/s; busy against idle (medians of the runs): recorded score "
        f"{moved('recorded'):+.1f}%, raw rate {moved('raw'):+.1f}%"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
