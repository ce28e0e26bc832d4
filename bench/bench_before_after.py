"""This checkout against an earlier one, side by side in one run: did a change slow judging?

The paths of the speed issue, each measured alternately in both trees (base, this,
this, base, ...) so that drift on a shared machine hits both alike:

  judge run   a whole `python judge.py run kv-bytes-per-token reference.py` process (wall),
              beside a bare `python -c pass` of the same interpreter (the "x bare" ratio);
              and the same for attention-decode, a torch problem (torch in both processes)
  warm        a correct submission judged by a warm sandboxed worker, one at a time: the
              latency the caller sees minus the cases' own time (the runner's overhead), for
              a browser-tier and a torch-tier problem
  2 in flight submissions per second through a warm runner of two workers, two at a time
  cold        the same overhead with a fresh sandbox (bubblewrap + python + imports) per job

One long-lived process per tree holds its runners and takes turns with the other; both
trees use this interpreter (the same virtual environment).

    python bench/bench_before_after.py --base <commit or checkout> [--rounds 5] [--jobs 10]
    make bench-gate BASE=<commit>

Given a commit, the base tree is a temporary `git worktree` whose models/ links to ours,
removed afterwards. Both trees get their bytecode written first, as `make setup` does.
A table of medians and ratios (this / base) is printed; a ratio above 1.05 on a path is a
slowdown the change's note must explain.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI_PROBLEM = "kv-bytes-per-token"
BROWSER_PROBLEM = "kv-bytes-per-token"
TORCH_PROBLEM = "attention-decode"
SLOWER = 1.05  # a ratio above this is reported as slower

# Runs inside one tree, cwd = the tree. Commands on stdin, one JSON line out for each:
#   warm N    -> {slug: [overhead ms] * N} for both problems, one submission at a time
#   burst N   -> {"subs_per_s": x}: 2N torch-problem submissions, two in flight
#   cold N    -> {"overhead": [ms] * N}: the torch problem, a fresh sandbox per submission
# The public seed (seed=None), where every case's time is exact: on a secret seed a hidden
# case shows its time rounded up to a tenth of its limit, and the overhead came out negative.
_TREE_CHILD = """
import json, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
sys.path.insert(0, ".")
from runner.api import Runner
browser, torch_slug = sys.argv[1:3]
slugs = (browser, torch_slug)
problems = Path("problems")
warm = Runner(pool_size=2, problems_root=problems)
cold = None
sources = {s: warm.problems.get(s).reference_source() for s in slugs}

def overhead(runner, slug):
    t0 = time.perf_counter()
    report = runner.judge(slug, sources[slug], seed=None)
    latency = (time.perf_counter() - t0) * 1000
    assert report.verdict.value == "AC", report.to_dict(admin=True)
    return latency - sum(c.time_ms for c in report.cases)

for s in slugs:
    for _ in range(3):  # fill the reference cache, warm both workers
        overhead(warm, s)
print("ready", flush=True)
for line in sys.stdin:
    command, n = line.split()
    n = int(n)
    if command == "warm":
        out = {s: [overhead(warm, s) for _ in range(n)] for s in slugs}
    elif command == "burst":
        t0 = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda _: overhead(warm, torch_slug), range(2 * n)))
        out = {"subs_per_s": 2 * n / (time.perf_counter() - t0)}
    else:
        if cold is None:
            cold = Runner(pool_size=0, problems_root=problems)
        out = {"overhead": [overhead(cold, torch_slug) for _ in range(n)]}
    print(json.dumps(out), flush=True)
warm.close()
if cold is not None:
    cold.close()
"""


def timed_process(argv: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    elapsed = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {cwd}: {proc.stderr.decode()[-500:]}")
    return elapsed


def alternate(trees: dict[str, Path], i: int) -> list[str]:
    return list(trees) if i % 2 == 0 else list(reversed(trees))


def measure_cli(trees: dict[str, Path], runs: int, torch_runs: int) -> dict[str, list[float]]:
    """Wall ms of `judge run` per tree (keys base, this), of a bare interpreter (bare), and
    of a torch problem's `judge run` per tree (torch:base, torch:this)."""
    times: dict[str, list[float]] = {name: [] for name in [*trees, "bare"]}
    for i in range(runs):
        times["bare"].append(timed_process([sys.executable, "-c", "pass"], REPO))
        for name in alternate(trees, i):
            times[name].append(timed_process(_judge_run(CLI_PROBLEM), trees[name]))
    for name in trees:
        times[f"torch:{name}"] = []
    for i in range(torch_runs):
        for name in alternate(trees, i):
            times[f"torch:{name}"].append(timed_process(_judge_run(TORCH_PROBLEM), trees[name]))
    return times


def _judge_run(slug: str) -> list[str]:
    return [sys.executable, "judge.py", "run", slug, f"problems/{slug}/reference.py"]


class TreeChild:
    """The long-lived measuring process of one tree."""

    def __init__(self, tree: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _TREE_CHILD, BROWSER_PROBLEM, TORCH_PROBLEM],
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self._readline().strip() != "ready":
            raise SystemExit(f"the runners in {tree} did not start")

    def _readline(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def ask(self, command: str, n: int) -> dict[str, object]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{command} {n}\n")
        self.proc.stdin.flush()
        line = self._readline()
        if not line:
            raise SystemExit(f"the measuring process stopped during {command!r}")
        answer: dict[str, object] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(120)


Samples = dict[str, dict[str, list[float]]]  # tree -> measurement -> values


def measure_runners(trees: dict[str, Path], rounds: int, jobs: int, cold_jobs: int) -> Samples:
    children: dict[str, TreeChild] = {}
    samples: Samples = {name: {} for name in trees}
    try:
        for name, tree in trees.items():
            children[name] = TreeChild(tree)
        for i in range(rounds):
            for command, n in (("warm", jobs), ("burst", jobs), ("cold", cold_jobs)):
                for name in alternate(trees, i):
                    answer = children[name].ask(command, n)
                    for key, values in answer.items():
                        got = values if isinstance(values, list) else [values]
                        samples[name].setdefault(f"{command}:{key}", []).extend(got)
    finally:
        for child in children.values():
            child.close()
    return samples


@contextmanager
def base_tree(base: str) -> Iterator[Path]:
    """A checkout of `base`: the folder itself, or a temporary worktree of the commit."""
    folder = Path(base)
    if (folder / "judge.py").is_file():
        yield folder.resolve()
        return
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{base}^{{commit}}"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if commit.returncode != 0:
        raise SystemExit(f"--base {base!r} is neither a checkout nor a commit of this repository")
    parent = Path(tempfile.mkdtemp(prefix="bench-base-"))
    parent.chmod(0o755)  # the sandbox user reads the base tree's code through it
    tree = parent / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(tree), commit.stdout.strip()],
        cwd=REPO, check=True,
    )  # fmt: skip
    try:
        if (REPO / "models").is_dir():
            (tree / "models").symlink_to(REPO / "models")
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False)
        shutil.rmtree(parent, ignore_errors=True)


def compile_code(tree: Path) -> None:
    """Bytecode for both trees alike, as `make setup` writes it: with PYTHONDONTWRITEBYTECODE
    set, a tree without it would compile every module on every `judge run`."""
    packages = [
        p for p in ("judge", "runner", "mini_llm", "practice_judge.py") if (tree / p).exists()
    ]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *packages],
        cwd=tree, stdout=subprocess.DEVNULL, check=True,
    )  # fmt: skip


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def row(label: str, base: list[float], this: list[float], unit: str, higher_is_better=False) -> str:
    b, t = statistics.median(base), statistics.median(this)
    ratio = t / b
    slower = ratio < 1 / SLOWER if higher_is_better else ratio > SLOWER
    flag = " slower" if slower else ""
    return f"| {label} | {b:.1f} {unit} | {t:.1f} {unit} | {ratio:.3f}{flag} |"


def print_table(base: str, cli: dict[str, list[float]], runners: Samples, args) -> None:  # type: ignore[no-untyped-def]
    bare = statistics.median(cli["bare"])
    when = time.strftime("%Y-%m-%d")
    print(
        f"{when}, {os.cpu_count()} cores, {cpu_model()}; base {base}; medians; ratio = this / base"
    )
    print(
        f"({args.cli_runs} judge runs, {args.torch_cli_runs} of the torch problem; "
        f"{args.rounds} rounds of {args.jobs} warm submissions per problem, "
        f"{2 * args.jobs} in pairs, {args.cold_jobs} cold)\n"
    )
    print("| path | base | this | ratio |")
    print("|---|---:|---:|---:|")
    print(row(f"`judge run {CLI_PROBLEM}`, wall", cli["base"], cli["this"], "ms"))
    print(
        f"| the same, x a bare `python -c pass` ({bare:.1f} ms) | "
        f"{statistics.median(cli['base']) / bare:.2f}x | "
        f"{statistics.median(cli['this']) / bare:.2f}x | |"
    )
    print(row(f"`judge run {TORCH_PROBLEM}`, wall", cli["torch:base"], cli["torch:this"], "ms"))
    b, t = runners["base"], runners["this"]
    for slug, tier in ((BROWSER_PROBLEM, "browser"), (TORCH_PROBLEM, "torch")):
        key = f"warm:{slug}"
        print(row(f"warm overhead p50, {slug} ({tier})", b[key], t[key], "ms"))
    print(
        row(
            f"submissions/s, 2 in flight, {TORCH_PROBLEM}",
            b["burst:subs_per_s"],
            t["burst:subs_per_s"],
            "/s",
            higher_is_better=True,
        )
    )
    print(
        row(
            f"cold sandbox overhead p50, {TORCH_PROBLEM}",
            b["cold:overhead"],
            t["cold:overhead"],
            "ms",
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="a commit, or a checkout of one")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=10, help="warm submissions per round")
    parser.add_argument("--cold-jobs", type=int, default=2, help="cold submissions per round")
    parser.add_argument("--cli-runs", type=int, default=20)
    parser.add_argument("--torch-cli-runs", type=int, default=6)
    args = parser.parse_args()
    if min(args.rounds, args.jobs, args.cold_jobs, args.cli_runs, args.torch_cli_runs) < 1:
        parser.error(
            "--rounds, --jobs, --cold-jobs, --cli-runs and --torch-cli-runs must be at least 1"
        )
    with base_tree(args.base) as base:
        trees = {"base": base, "this": REPO}
        for tree in trees.values():
            compile_code(tree)
        cli = measure_cli(trees, args.cli_runs, args.torch_cli_runs)
        runners = measure_runners(trees, args.rounds, args.jobs, args.cold_jobs)
    print_table(args.base, cli, runners, args)


if __name__ == "__main__":
    main()
