"""The judge's own overhead: a whole `judge run` process next to a bare interpreter start.

Runs both commands alternately (A B A B ...) so drift on a shared machine hits both, then
prints min/median/max wall time and the per-pair ratio. Goal: median `judge run` under
150 ms and under 5x a bare `python -c pass`.

    python bench/bench_judge_overhead.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SLUG = "kv-bytes-per-token"


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0,):
        raise SystemExit(
            f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    solution = REPO / "problems" / SLUG / "reference.py"
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -I -S -c pass": [sys.executable, "-I", "-S", "-c", "pass"],
        f"judge run {SLUG} (46 cases)": [
            sys.executable,
            "judge.py",
            "run",
            SLUG,
            str(solution),
            "--json",
        ],
    }
    for cmd in commands.values():  # warm the page cache
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            times[name].append(wall(cmd))
    base = times["python -c pass"]
    header = ("command", "min ms", "median ms", "max ms", "x bare (median of pairs)")
    print(f"{header[0]:<40}" + "".join(f"{h:>12}" for h in header[1:4]) + f"{header[4]:>27}")
    for name, values in times.items():
        ratio = statistics.median(v / b for v, b in zip(values, base, strict=True))
        cells = (min(values) * 1e3, statistics.median(values) * 1e3, max(values) * 1e3)
        print(f"{name:<40}" + "".join(f"{c:12.1f}" for c in cells) + f"{ratio:27.2f}")


if __name__ == "__main__":
    main()
