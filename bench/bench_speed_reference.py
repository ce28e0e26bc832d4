"""decode-throughput's reference, judged as the server judges it: score and spread.

Each run is a whole judged submission through the warm Runner (the sandbox, one torch
thread per job, the models preloaded): seven timed, checked repetitions, scored by their
median rate with the interquartile range. Several runs side by side show how much the
score itself moves from one submission to the next.

    python bench/bench_speed_reference.py [--runs 3] [--solution FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.problem.problemset import ProblemSet
from judge.problem.speed_spec import SpeedResult
from runner.api import Runner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--solution", type=Path, help="judge this file instead of the reference")
    args = parser.parse_args(argv)
    problem = ProblemSet().get("decode-throughput")
    source = args.solution.read_text() if args.solution else problem.reference_source()
    scores: list[SpeedResult] = []
    with Runner(pool_size=1) as runner:
        for _ in range(args.runs):
            report = runner.judge(problem, source)
            if report.speed is None:
                raise SystemExit(f"not scored: {report.verdict.value} {report.first_failure}")
            scores.append(report.speed)
    hw = scores[0].hardware
    print(
        f"decode-throughput, {args.runs} judged runs; {hw.get('cpu')}, {hw.get('threads')} thread"
    )
    head = f"{'run':>3} {'median':>10} {'q1':>10} {'q3':>10} {'IQR/median':>11} {'reps':>5}"
    print(head)
    print("-" * len(head))
    for i, s in enumerate(scores, 1):
        print(
            f"{i:>3} {s.median:>10.1f} {s.q1:>10.1f} {s.q3:>10.1f} "
            f"{100 * s.iqr / s.median:>10.1f}% {s.repetitions:>5}"
        )
    medians = [s.median for s in scores]
    spread = (max(medians) - min(medians)) / statistics.median(medians)
    print(f"\nunit {scores[0].unit}; score range across runs {100 * spread:.1f}% of its median")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
