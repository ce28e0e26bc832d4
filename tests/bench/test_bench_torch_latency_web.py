"""bench/bench_torch_latency_web.py on one cheap torch problem: the platform starts in its
process with the sandboxed judge, a learner submits over HTTP, and the table prints every
phase's column with a row of figures for the problem."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_host import needs_sandbox

REPO = Path(__file__).resolve().parents[2]
SLUG = "attention-decode"
COLUMNS = (
    "queue",
    "prep",
    "calib",
    "fork",
    "start",
    "setup+1st",
    "cases",
    "timed",
    "report",
    "total",
    "1st seen",
    "fresh total",
)

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


@needs_sandbox
def test_the_web_torch_latency_benchmark_splits_a_submission_into_its_phases(
    tmp_path: Path,
) -> None:
    argv = [sys.executable, str(REPO / "bench" / "bench_torch_latency_web.py")]
    argv += ["--n", "1", "--problems", SLUG]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=500, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("problem"))
    assert all(column in header for column in COLUMNS), header
    row = next(line for line in lines if line.startswith(SLUG))
    figures = re.findall(r"\d+\.\d\d", row)
    # Eleven columns (nine phases, the total, the first progress seen), then the fresh
    # submission's total and first progress.
    assert len(figures) == 13, row
    phases = [float(f) for f in figures[:9]]
    total = float(figures[9])
    assert abs(sum(phases) - total) < 0.05, row  # the phases add up to Submit-to-verdict
    assert "not AC" not in done.stdout, done.stdout
