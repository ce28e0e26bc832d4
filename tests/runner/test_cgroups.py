"""Per-job cgroups: limits that hold for every process of a job together."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

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
def test_a_process_given_the_task_files_moves_itself_in_and_ensure_leaves_it_there() -> None:
    cgroup = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=8)
    fds = cgroup.open_task_files()
    if SUPPORT.version != 1:
        assert fds == []  # v2: the runner moves the job itself
        cgroup.remove()
        return
    writes = "".join(f"os.write({fd}, b'0'); " for fd in fds)
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", f"import os, time; {writes}time.sleep(60)"], pass_fds=fds
    )
    try:
        for fd in fds:
            os.close(fd)
        # The child writes one hierarchy's file after another: it is in all of them only
        # once its last write is done (pids() lists it from the first).
        deadline = time.monotonic() + 30
        while not cgroup.holds(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cgroup.holds(proc.pid)
        assert cgroup.pids() == [proc.pid]
        cgroup.ensure(proc.pid)
        assert cgroup.pids() == [proc.pid]
    finally:
        cgroup.remove()
    try:
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@needs_cgroups
def test_ensure_moves_a_process_that_did_not_move_itself_in() -> None:
    cgroup = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=8)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not cgroup.holds(proc.pid)
        cgroup.ensure(proc.pid)
        assert cgroup.pids() == [proc.pid]
    finally:
        cgroup.remove()
    assert proc.wait(10) == -signal.SIGKILL


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


def _fake_v2(root: Path, own_procs: str) -> Path:
    """A cgroup v2 tree as plain files: enough to test the delegation decisions."""
    (root / "cgroup.controllers").write_text("cpu memory pids io\n")
    service = root / "svc"
    service.mkdir()
    (service / "cgroup.controllers").write_text("cpu memory pids\n")
    (service / "cgroup.subtree_control").write_text("\n")
    (service / "cgroup.procs").write_text(own_procs)
    return service


def test_v2_runner_alone_in_its_cgroup_moves_itself_into_a_leaf(tmp_path: Path) -> None:
    import os

    from runner import cgroups

    service = _fake_v2(tmp_path, f"{os.getpid()}\n")
    support = cgroups.detect_v2("/svc", root=tmp_path)
    assert support is not None and support.version == 2
    assert (service / "judge-runner" / "cgroup.procs").read_text() == str(os.getpid())
    assert (service / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    again = cgroups.detect_v2("/svc/judge-runner", root=tmp_path)  # a second launcher, same process
    assert again is not None and again.dirs == support.dirs


def test_v2_cgroup_shared_with_other_processes_is_not_taken_over(tmp_path: Path) -> None:
    from runner import cgroups

    _fake_v2(tmp_path, "1\n2\n")
    support = cgroups.detect_v2("/svc", root=tmp_path)
    assert support is not None and support.version == 0
    assert "holds other processes" in support.reason
    assert not (tmp_path / "svc" / "judge-runner").exists()


@needs_cgroups
def test_stale_empty_job_cgroups_are_swept_and_fresh_ones_kept() -> None:
    import os
    import time

    from runner.cgroups import sweep_stale

    old = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=8)
    fresh = JobCgroup(SUPPORT, memory_bytes=64 << 20, max_pids=8)
    try:
        an_hour_ago = time.time() - 3600
        for path in old.dirs.values():
            os.utime(path, (an_hour_ago, an_hour_ago))
        assert sweep_stale(SUPPORT) >= len(old.dirs)
        assert not any(path.exists() for path in old.dirs.values())
        assert all(path.exists() for path in fresh.dirs.values())
    finally:
        fresh.remove()
