"""bench/bench_web.py on a small data set: it builds its database and prints its table
(it once failed at its first insert when users gained a required column)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_web_benchmark_runs_on_a_small_data_set_and_prints_its_table(tmp_path: Path) -> None:
    argv = [sys.executable, str(REPO / "bench" / "bench_web.py"), "--users", "20"]
    argv += ["--submissions", "200", "--requests", "3", "--db", str(tmp_path / "bench.sqlite3")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "/api/leaderboard" in done.stdout and "p50" in done.stdout
