"""Per-job cgroups: limits that hold for every process of a job together."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from runner.cgroups import JobCgroup, detect

SUPPORT = detect()
needs_cgroups = pytest.mark.skipif(SUPPORT.version == 0, reason=SUPPORT.reason)


def _held(code: str) -> subprocess.Popen[bytes]:
    """A Python process that waits for one byte on stdin before running `code`."""
    return subprocess.Popen(
        [sys.executable, "-I", "-c", f"import sys; sys.stdin.buffer.read(1)\n{code}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _release(proc: subprocess.Popen[bytes]) -> int:
    assert proc.stdin is not None
    proc.stdin.write(b"x")
    proc.stdin.close()
    return proc.wait(60)


@needs_cgroups
def test_memory_limit_kills_and_is_reported_as_oom() -> None:
    cgroup = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=16)
    try:
        proc = _held("block = b'x' * (512 << 20)")
        cgroup.add(proc.pid)
        assert _release(proc) == -signal.SIGKILL
        assert cgroup.oom_killed()
    finally:
        cgroup.remove()


@needs_cgroups
def test_process_limit_stops_a_fork_bomb() -> None:
    cgroup = JobCgroup(SUPPORT, memory_bytes=256 << 20, max_pids=4)
    code = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while n < 50:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30)\n"
        "        n += 1\n"
        "except OSError:\n"
        "    os._exit(10 + n)\n"
        "os._exit(0)\n"
    )
    try:
        proc = _held(code)
        cgroup.add(proc.pid)
        code = _release(proc)
        assert 10 <= code < 10 + 4  # fork failed after at most 3 children
        assert not cgroup.oom_killed()
    finally:
        cgroup.remove()
    assert all(not path.exists() for path in cgroup.dirs.values())


@needs_cgroups
def test_remove_kills_what_is_left_and_is_idempotent() -> None:
    cgroup = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=8)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    cgroup.add(proc.pid)
    assert cgroup.pids() == [proc.pid]
    cgroup.remove()
    cgroup.remove()
    assert proc.wait(10) == -signal.SIGKILL


def test_without_root_or_writable_cgroups_doctor_gets_a_reason() -> None:
    assert SUPPORT.reason
    assert SUPPORT.version in (0, 1, 2)
