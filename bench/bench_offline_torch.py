"""A learner's offline `judge run` of every torch problem, this checkout beside an earlier one.

For each torch-tier problem: the wall time of a whole `python judge.py run SLUG
reference.py` process in both trees, taken in turns (base, this, this, base, ...), first
with an empty cache folder (the first run of the day) and then with what that run kept
(the learner's next runs: a problem that loads checkpoints reads its public cases and the
reference's answers back, judge/run/answer_cache.py). Both trees get the same fresh cache
folders, one per tree; a base older than the answer cache keeps only specs there.

    python bench/bench_offline_torch.py --base <commit or checkout> [--runs 3] [--only SLUG ...]

Prints a table of medians and ratios (this / base).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_before_after import alternate, base_tree, compile_code, cpu_model

REPO = Path(__file__).resolve().parent.parent


def torch_problems() -> list[str]:
    found = []
    for toml in sorted((REPO / "problems").glob("*/problem.toml")):
        if 'tier = "torch"' in toml.read_text(encoding="utf-8"):
            found.append(toml.parent.name)
    return found


def timed_run(tree: Path, slug: str, cache: Path) -> float:
    env = dict(os.environ, JUDGE_ANSWER_CACHE=str(cache / "answers"))
    env["JUDGE_SPEC_CACHE"] = str(cache / "specs")
    argv = [sys.executable, "judge.py", "run", slug, f"problems/{slug}/reference.py"]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=tree, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{slug} in {tree} failed: {proc.stdout.decode()[-800:]}")
    return elapsed


def measure(
    trees: dict[str, Path], slugs: list[str], runs: int, scratch: Path
) -> dict[tuple[str, str, str], list[float]]:
    """(slug, tree, "first" | "next") -> wall seconds."""
    times: dict[tuple[str, str, str], list[float]] = {}
    for slug in slugs:
        for i in range(runs):
            for name in alternate(trees, i):
                cache = scratch / f"{slug}-{name}-{i}"
                first = timed_run(trees[name], slug, cache)
                following = timed_run(trees[name], slug, cache)
                times.setdefault((slug, name, "first"), []).append(first)
                times.setdefault((slug, name, "next"), []).append(following)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="a commit, or a checkout of one")
    parser.add_argument("--runs", type=int, default=3, help="pairs of runs per problem and tree")
    parser.add_argument("--only", nargs="*", default=None, help="these problems only")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    slugs = torch_problems()
    if args.only:
        unknown = sorted(set(args.only) - set(slugs))
        if unknown:
            parser.error(f"not torch problems here: {', '.join(unknown)}")
        slugs = [s for s in slugs if s in args.only]
    with base_tree(args.base) as base, tempfile.TemporaryDirectory() as scratch:
        trees = {"base": base, "this": REPO}
        for tree in trees.values():
            compile_code(tree)
        times = measure(trees, slugs, args.runs, Path(scratch))
    day = time.strftime("%Y-%m-%d")
    print(f"{day}, {os.cpu_count()} cores, {cpu_model()}; base {args.base}; medians of {args.runs}")
    print("\n| problem | first run, base | this | ratio | next runs, base | this | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for slug in slugs:
        cells = []
        for when_run in ("first", "next"):
            b = statistics.median(times[(slug, "base", when_run)])
            t = statistics.median(times[(slug, "this", when_run)])
            cells += [f"{b:.2f} s", f"{t:.2f} s", f"{t / b:.3f}"]
        print(f"| {slug} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
