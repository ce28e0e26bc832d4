"""bench/bench_server_attacks.py on small attacks: it starts `judge serve`'s server in a
child, attacks it and prints its table (the figures themselves are docs/BENCHMARKS.md's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_server_benchmark_runs_small_attacks_and_prints_its_table(tmp_path: Path) -> None:
    argv = [sys.executable, str(REPO / "bench" / "bench_server_attacks.py"), "--stacks", "judge"]
    argv += ["--slow", "12", "--spread", "24,3"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    header, _, row = done.stdout.splitlines()
    assert "12 slow (other / same address)" in header and "24 slow from 3 addresses" in header
    assert row.startswith("| judge |") and "413 after" in row
