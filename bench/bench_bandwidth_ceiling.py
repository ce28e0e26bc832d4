"""The speed problems' memory-bandwidth ceiling: how much each way of measuring it moves
between processes, idle and with busy loops beside it, side by side in one run.

A timed repetition that reads its minimum bytes faster than the ceiling is WA
(judge/problem/speed_spec.py), so a ceiling measured low is an honest fast score refused.
Each estimator runs in `--n` fresh processes per condition (the judge measures once per
process); the table gives the lowest, median and highest ceiling in GB/s and the spread
(highest / lowest).

  zero-page-best5   the estimator before this bench: best of five copies of a fresh
                    64 MiB bytearray, whose zero pages are read from one shared page
  touched-best5     the same copy from a buffer filled with data, both buffers touched first
  touched-best15    as touched-best5, best of fifteen

    python bench/bench_bandwidth_ceiling.py [--n 8] [--busy 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ZERO_PAGE = """
import time
source = bytearray(64 << 20); target = bytearray(len(source)); best = float("inf")
for _ in range(5):
    t0 = time.perf_counter(); target[:] = source; best = min(best, time.perf_counter() - t0)
print(2 * len(source) / best)
"""
CURRENT = """
from judge.problem import speed_spec
print(speed_spec.measure_copy_bandwidth(copies={copies}))
"""
ESTIMATORS = {
    "zero-page-best5": ZERO_PAGE,
    "touched-best5": CURRENT.format(copies=5),
    "touched-best15": CURRENT.format(copies=15),
}


def one(code: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return float(done.stdout.strip()) / 1e9


def spin() -> None:
    while True:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8, help="fresh processes per cell")
    parser.add_argument("--busy", type=int, default=2, help="busy loops in the loaded rows")
    args = parser.parse_args()
    print(f"{'estimator':18} {'condition':10} {'low':>7} {'median':>7} {'high':>7} {'spread':>7}")
    for condition in ("idle", f"{args.busy} busy"):
        loops = []
        if condition != "idle":
            loops = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
            for loop in loops:
                loop.start()
        try:
            for name, code in ESTIMATORS.items():
                seen = [one(code) for _ in range(args.n)]
                low, high = min(seen), max(seen)
                print(
                    f"{name:18} {condition:10} {low:7.1f} {statistics.median(seen):7.1f} "
                    f"{high:7.1f} {high / low:7.2f}",
                    flush=True,
                )
        finally:
            for loop in loops:
                loop.kill()
    print("GB/s of one copy (read + write counted), before the judge's 4x margin")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
