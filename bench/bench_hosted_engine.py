"""What the capstone's trusted driver costs: serve-engine judged with its driver in the job
(the design before issue 35: driver, runner, pool and engine in the learner's process)
and hosted (the design now: the driver, runner and pool in a trusted child, the engine in
the job, every call carried by the parent), side by side on the same seed, in the same
launcher, alternating A and B each round.

The table gives, per engine and design, the median of the timed traces' rates
(tokens/s, the judge's own clock, request sent to answer received, as the score is made)
over all rounds, and the ratio hosted / in the job. The last column is what the channel
costs per step of a timed trace: the difference of the two medians' seconds per trace,
over the steps a trace takes (15 for the reference).

    python bench/bench_hosted_engine.py [--rounds 3] [--seed 7] [--local]

`--local` judges in plain local children instead of the sandbox's warm workers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.problem.problemset import ProblemSet
from judge.problem.spec import DriverSide, ProblemSpec
from judge.record import replace
from judge.run.judge_source import judge_source
from judge.run.launch import LocalLauncher
from mini_llm.serving_trace import TIMED_LENGTHS, TIMED_NEW_TOKENS

PROBLEM = ProblemSet().get("serve-engine")
ENGINES = {
    "reference": PROBLEM.path / "reference.py",
    "one-forward-per-chunk": PROBLEM.path / "solutions" / "accepted" / "one_forward_per_chunk.py",
}
TOKENS_PER_TRACE = len(TIMED_LENGTHS) * TIMED_NEW_TOKENS
STEPS_PER_TRACE = 15  # the reference's steps on a timed trace (docs/BENCHMARKS.md)


def designs(problem: ProblemSpec) -> dict[str, ProblemSpec]:
    """The problem as judged before (its driver in the job, the runner's modules there) and
    now (hosted)."""
    in_job = replace(problem, driver=DriverSide.JOB, withheld=())
    return {"in the job": in_job, "hosted": problem}


def rates(problem: ProblemSpec, source: str, seed: int, launcher: object) -> list[float]:
    report = judge_source(problem, source, seed=seed, launcher=launcher)  # type: ignore[arg-type]
    if report.speed is None:
        raise SystemExit(f"{problem.slug} ({problem.driver}) was not scored: {report.verdict}")
    return list(report.speed.samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--local", action="store_true", help="local children, no sandbox")
    args = parser.parse_args()
    if args.local:
        workdir = tempfile.TemporaryDirectory()
        launcher: object = LocalLauncher(Path(workdir.name))
    else:
        from runner.launchers.sandbox import SandboxLauncher

        launcher = SandboxLauncher(pool_size=1)
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        for _ in range(args.rounds):
            for engine, path in ENGINES.items():
                source = path.read_text(encoding="utf-8")
                for design, problem in designs(PROBLEM).items():
                    got = rates(problem, source, args.seed, launcher)
                    samples.setdefault((engine, design), []).extend(got)
    finally:
        close = getattr(launcher, "close", None)
        if close is not None:
            close()
    where = "local children" if args.local else "the sandbox"
    print(f"serve-engine, seed {args.seed}, {args.rounds} rounds, in {where}")
    print("| engine | design | tokens/s (median) | hosted / in the job | channel per step |")
    print("|---|---|---:|---:|---:|")
    for engine in ENGINES:
        before = statistics.median(samples[(engine, "in the job")])
        after = statistics.median(samples[(engine, "hosted")])
        per_step_ms = (TOKENS_PER_TRACE / after - TOKENS_PER_TRACE / before) / STEPS_PER_TRACE * 1e3
        print(f"| {engine} | in the job | {before:.1f} | | |")
        print(f"| {engine} | hosted | {after:.1f} | {after / before:.3f} | {per_step_ms:.2f} ms |")


if __name__ == "__main__":
    main()
