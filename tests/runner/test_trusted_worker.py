"""Trusted children (a paced reference, a capstone stage's driver) forked from the warm
launcher's trusted worker: each in a session and cgroup of its own with only its own five
descriptors and its limits applied, its end reported and its pid held until cleanup, and a
worker that dies replaced for the next child."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.grading.outcome import ExitInfo
from judge.problem.problemset import ProblemSet
from judge.run.cpu_clock import read_stat
from judge.wire.protocol import encode_frame, write_frame
from runner.launchers.sandbox import SandboxLauncher
from runner.trusted_child import TrustedChild

pytestmark = pytest.mark.sandbox
SERVE = ProblemSet().get("serve-static")  # a torch-tier problem whose driver is trusted
CHILD_LOOP_EXIT = 3  # judge.run.child: the request channel closed before a "load" frame


def launched(launcher: SandboxLauncher) -> TrustedChild:
    return launcher.launch_trusted(SERVE, SERVE.limits)


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def limits_applied(pid: int) -> bool:
    """Whether the child has reached judge.run.child_main's rlimits (its CPU limit is set)."""
    with open(f"/proc/{pid}/limits") as f:
        line = next(x for x in f if x.startswith("Max cpu time"))
    return line.split()[3] == str(int(SERVE.limits.total_time_s) + 1)


def test_a_torch_tier_trusted_child_is_forked_warm_with_only_its_own_descriptors(
    warm_launcher: SandboxLauncher,
) -> None:
    child = launched(warm_launcher)
    try:
        worker = warm_launcher.trusted_worker
        assert worker is not None and worker.alive()
        assert "torch" in worker.preloaded and "model:smollm2-135m" in worker.preloaded
        stat = read_stat(child.pid)
        assert stat is not None and stat.ppid == worker.process.pid
        assert eventually(lambda: limits_applied(child.pid))
        assert read_stat(child.pid).session == child.pid  # type: ignore[union-attr]
        # Nothing of the worker's (its socket, other children's status sockets) is held.
        assert sorted(int(fd) for fd in os.listdir(f"/proc/{child.pid}/fd")) == [0, 1, 2, 3, 4]
        if warm_launcher.cgroups.version:
            with (
                open(f"/proc/{child.pid}/cgroup") as mine,
                open(f"/proc/{worker.process.pid}/cgroup") as workers,
            ):
                assert mine.read() != workers.read()  # moved into a cgroup of its own
    finally:
        child.cleanup()


def test_a_trusted_childs_end_is_reported_and_its_pid_held_until_cleanup(
    warm_launcher: SandboxLauncher,
) -> None:
    child = launched(warm_launcher)
    pid = child.pid
    try:
        assert eventually(lambda: limits_applied(pid))
        child.close_requests()
        assert child.wait(30.0) == ExitInfo(CHILD_LOOP_EXIT, None)
        # Still a zombie of the worker: the pid cannot be reused under a kill, and the
        # kernel still has its CPU time.
        assert read_stat(pid).state == "Z"  # type: ignore[union-attr]
        assert child.cpu_seconds() is not None
        child.kill()  # harmless: the process is still the child's
    finally:
        child.cleanup()
    assert eventually(lambda: read_stat(pid) is None), "the worker did not reap the child"


def test_a_trusted_child_past_its_time_is_killed_and_the_signal_reported(
    warm_launcher: SandboxLauncher,
) -> None:
    child = launched(warm_launcher)
    try:
        # The child waits for a request that never comes.
        assert child.wait(0.5) == ExitInfo(None, signal.SIGKILL)
    finally:
        child.cleanup()


def test_a_trusted_worker_that_died_is_replaced_for_the_next_child(
    warm_launcher: SandboxLauncher,
) -> None:
    first = launched(warm_launcher)
    worker = warm_launcher.trusted_worker
    assert worker is not None
    started = warm_launcher.trusted_workers_started
    try:
        os.kill(worker.process.pid, signal.SIGKILL)
        # Its child, orphaned, is ended by its handle, and judged killed.
        assert first.wait(30.0) == ExitInfo(None, signal.SIGKILL)
        assert eventually(lambda: (read_stat(first.pid) or _GONE).state in "ZX")
    finally:
        first.cleanup()
    second = launched(warm_launcher)
    try:
        assert warm_launcher.trusted_workers_started == started + 1
        assert warm_launcher.trusted_worker is not worker
        second.close_requests()
        assert second.wait(30.0) == ExitInfo(CHILD_LOOP_EXIT, None)
    finally:
        second.cleanup()


# A trusted driver's cases.py that says, as it loads, what it draws without a seed.
DRAWS = "import random, torch\nprint(random.random(), torch.rand(1).item(), flush=True)\n"


def drawn(launcher: SandboxLauncher) -> str:
    child = launched(launcher)
    try:
        load = {"type": "load", "drive": True, "driver": DRAWS, "names": [], "device": "cpu"}
        write_frame(child.request_fd, encode_frame(load))
        child.close_requests()
        assert child.wait(30.0) == ExitInfo(0, None)
        return os.read(child.stdout_fd, 4096).decode()
    finally:
        child.cleanup()


def test_each_trusted_child_draws_its_own_unseeded_random_numbers(
    warm_launcher: SandboxLauncher,
) -> None:
    """As a new interpreter would: forked, every child would share the worker's state."""
    first, second = drawn(warm_launcher).split(), drawn(warm_launcher).split()
    assert len(first) == len(second) == 2, (first, second)
    # Python's own random is seeded again at every fork; torch's generator is not.
    assert first[0] != second[0] and first[1] != second[1], (first, second)


# A runner that has started its trusted worker and one child, then waits to be killed.
RUNNER = """\
import sys
sys.path.insert(0, {root!r})
from judge.problem.problemset import ProblemSet
from runner.launchers.sandbox import SandboxLauncher
problem = ProblemSet().get("serve-static")
launcher = SandboxLauncher(pool_size=0, trusted_worker=True)
child = launcher.launch_trusted(problem, problem.limits)
print(launcher.trusted_worker.process.pid, child.pid, flush=True)
sys.stdin.read()
"""


def test_the_trusted_worker_and_its_children_end_with_a_runner_killed_by_sigkill() -> None:
    """Nothing of a runner killed with no chance to clean up (kill -9) is left running: the
    worker sees its socket close and ends its children and itself."""
    root = str(Path(__file__).resolve().parents[2])
    runner = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(RUNNER).format(root=root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        worker, child = (int(pid) for pid in runner.stdout.readline().split())  # type: ignore[union-attr]
        assert read_stat(worker) is not None and read_stat(child) is not None
    finally:
        runner.kill()
        runner.wait()
        for stream in (runner.stdin, runner.stdout):
            stream.close()  # type: ignore[union-attr]
    for pid in (worker, child):
        assert eventually(lambda pid=pid: (read_stat(pid) or _GONE).state in "ZX"), pid


class _Gone:
    state = "X"


_GONE = _Gone()
