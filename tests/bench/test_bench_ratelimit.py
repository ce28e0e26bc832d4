"""bench/bench_ratelimit.py with few calls: it starts its own Redis, runs the pinned
scenarios on the hand-written stores and on the `limits` library's, and prints both
tables (docs/WEB.md cites its figures for keeping the stores)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from services import skip_unless_available

REPO = Path(__file__).resolve().parents[2]


def test_the_rate_limit_comparison_runs_and_the_shared_window_holds_its_limit() -> None:
    skip_unless_available("redis")
    argv = [sys.executable, str(REPO / "bench" / "bench_ratelimit.py"), "--calls", "20"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "hand/redis: 1 passed" in done.stdout  # the server's clock: skew changes nothing
    assert "median us per call" in done.stdout
