"""bench/bench_cluster.py --quick end to end: both modes judge in the real sandbox over a
real PostgreSQL (and Redis with `judge worker` processes for Celery), the side-by-side
table is printed, and nothing it started is left running or on disk."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from devtools.local_services import missing_binaries

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "bench_cluster.py"
ROWS = (
    "throughput (submissions/s)",
    "latency p50 (ms, created -> judged)",
    "latency p99 (ms)",
    "claim p50 (ms, created -> started)",
    "claim p99 (ms)",
    "Celery overhead per job (claim p50, celery - embedded):",
)


def left_running(mark: str, folder: Path) -> list[str]:
    """Processes carrying `mark` in their environment (workers, the postmaster) or working
    in `folder` (Redis runs in its own; it rewrites its environment for its title)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            environ = (proc / "environ").read_bytes()
            cwd = os.readlink(proc / "cwd")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or a kernel thread
        if mark.encode() in environ or cwd.startswith(str(folder)):
            found.append(f"{proc.name}: {cmdline}")
    return found


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.skipif(bool(missing_binaries()), reason=f"missing {missing_binaries()}")
def test_the_quick_benchmark_prints_both_modes_and_leaves_nothing_behind(tmp_path: Path) -> None:
    mark = f"bench-cluster-smoke-{uuid.uuid4().hex}"
    env = dict(os.environ, TMPDIR=str(tmp_path), BENCH_CLUSTER_SMOKE=mark)
    result = subprocess.run(
        [sys.executable, str(BENCH), "--quick"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    header = next((line for line in lines if line.startswith("mode ")), "")
    assert header.split() == ["mode", "embedded", "celery"], result.stdout
    for row in ROWS:
        assert any(line.strip().startswith(row) for line in lines), (row, result.stdout)
    assert "goal: under 20 ms" in result.stdout
    assert left_running(mark, tmp_path) == []
    assert list(tmp_path.iterdir()) == []  # its temporary folder is gone too


def test_a_count_below_one_is_refused_before_anything_starts() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--submissions", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--submissions and --sequential must be at least 1" in result.stderr
