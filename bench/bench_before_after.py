"""This checkout against an earlier one, side by side in one run: does a change slow judging?

Two measurements, each taken alternately in both trees so that drift on a shared
machine hits both alike:

  cli     a whole `python judge.py run <problem> reference.py` process (wall time)
  warm    a correct submission judged by warm sandboxed workers: latency as the caller
          sees it minus the cases' own time (the runner's overhead per submission);
          one long-lived process per tree, each with its own warm worker, taking turns
          round by round

Make the earlier tree with `git worktree add /tmp/base <commit>`; both trees use this
interpreter (the same virtual environment).

    python bench/bench_before_after.py --base /tmp/base [--rounds 5] [--jobs 10]
        [--warm-problems kv-bytes-per-token,attention-decode,greedy-generate]

The base tree finds the checkpoints where this one does if its models/ is a link to ours.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI_PROBLEM = "kv-bytes-per-token"
WARM_PROBLEMS = ("kv-bytes-per-token", "attention-decode")

# Runs inside one tree: a warm Runner, then "N" on stdin -> one JSON line of overheads (ms).
# The public seed (seed=None), where every case's time is exact: on a secret seed a hidden
# case shows its time rounded up to a tenth of its limit, and the overhead (latency minus the
# cases' times) came out negative.
_WARM_CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, ".")
from runner.api import Runner
slugs = sys.argv[1:]
with Runner(pool_size=1, problems_root=Path("problems")) as runner:
    sources = {s: runner.problems.get(s).reference_source() for s in slugs}
    for s in slugs:
        runner.judge(s, sources[s], seed=None)  # fill the reference cache, warm the worker
    print("ready", flush=True)
    for line in sys.stdin:
        out = {}
        for s in slugs:
            samples = []
            for _ in range(int(line)):
                t0 = time.perf_counter()
                report = runner.judge(s, sources[s], seed=None)
                latency = (time.perf_counter() - t0) * 1000
                assert report.verdict.value == "AC", report.to_dict(admin=True)
                samples.append(latency - sum(c.time_ms for c in report.cases))
            out[s] = samples
        print(json.dumps(out), flush=True)
"""


def cli_once(tree: Path) -> float:
    reference = f"problems/{CLI_PROBLEM}/reference.py"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "judge.py", "run", CLI_PROBLEM, reference],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    elapsed = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"judge run failed in {tree}: {proc.stderr.decode()[-500:]}")
    return elapsed


def measure_cli(trees: dict[str, Path], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in trees}
    for i in range(runs):
        order = list(trees) if i % 2 == 0 else list(reversed(trees))
        for name in order:
            times[name].append(cli_once(trees[name]))
    return times


def start_warm(tree: Path, problems: tuple[str, ...]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WARM_CHILD, *problems],
        cwd=tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"the warm runner in {tree} did not start")
    return proc


Samples = dict[str, dict[str, list[float]]]  # tree -> problem -> overheads (ms)


def measure_warm(
    trees: dict[str, Path], rounds: int, jobs: int, problems: tuple[str, ...]
) -> Samples:
    procs = {name: start_warm(tree, problems) for name, tree in trees.items()}
    samples: Samples = {name: {s: [] for s in problems} for name in trees}
    try:
        for i in range(rounds):
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for name in order:
                proc = procs[name]
                proc.stdin.write(f"{jobs}\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
                got = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
                for slug, values in got.items():
                    samples[name][slug] += values
    finally:
        for proc in procs.values():
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(60)
    return samples


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def row(label: str, base: list[float], new: list[float]) -> str:
    b, n = statistics.median(base), statistics.median(new)
    return f"| {label} | {b:.1f} | {n:.1f} | {n / b:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the earlier checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=10, help="submissions per round and tree")
    parser.add_argument("--cli-runs", type=int, default=20)
    parser.add_argument(
        "--warm-problems", default=",".join(WARM_PROBLEMS), help="comma-separated slugs"
    )
    args = parser.parse_args()
    problems = tuple(s for s in args.warm_problems.split(",") if s)
    if args.rounds < 1 or args.jobs < 1 or args.cli_runs < 1:
        parser.error("--rounds, --jobs and --cli-runs must be at least 1")
    if not (args.base / "judge.py").is_file():
        parser.error(f"{args.base} is not a checkout of this project")
    trees = {"base": args.base.resolve(), "this": REPO}
    cli = measure_cli(trees, args.cli_runs)
    warm = measure_warm(trees, args.rounds, args.jobs, problems)
    print(f"{cpu_model()}; medians in ms; ratio = this / base\n")
    print("| measurement | base | this | ratio |")
    print("|---|---|---|---|")
    print(row(f"`judge run {CLI_PROBLEM}` (whole process)", cli["base"], cli["this"]))
    for slug in problems:
        print(row(f"warm runner overhead, {slug}", warm["base"][slug], warm["this"][slug]))


if __name__ == "__main__":
    main()
