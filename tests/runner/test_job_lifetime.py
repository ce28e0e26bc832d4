"""The runner reports a job over only once none of its processes is left.

Pins the flake of issue 10 (a job's process seen alive after the runner had returned):
the end of a job was taken from the keeper's report alone, and when no report came (the
worker died, or the kill took longer than the runner waited) nothing checked the job's
pid namespace. Run without job cgroups, which would otherwise empty the job themselves.
"""

from __future__ import annotations

import textwrap
import threading
import time

import pytest
from conftest import RecordingLauncher

from judge.run.judge_source import judge_source
from runner.cgroups import CgroupSupport
from runner.launchers.sandbox import SandboxLauncher

LINGERING = """
import os, time
for _ in range(3):
    if os.fork() == 0:
        os.setsid()
        while True:
            time.sleep(0.01)
def add(a, b):
    time.sleep(30)
"""


@pytest.fixture
def launcher_without_cgroups():
    launcher = SandboxLauncher(pool_size=1, preload=())
    launcher.cgroups = CgroupSupport(0, (), "off for this test")
    yield launcher
    launcher.close()


def _kill_worker_when_job_runs(launcher: SandboxLauncher, recorder: RecordingLauncher) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if recorder.jobs and len(recorder.jobs[0].pid_ns.members()) >= 4:
            break
        time.sleep(0.02)
    for worker in launcher.workers():
        worker.kill()


def test_no_process_of_a_job_is_left_when_its_worker_dies_mid_job(
    add_problem, launcher_without_cgroups
):
    recorder = RecordingLauncher(launcher_without_cgroups)
    killer = threading.Thread(
        target=_kill_worker_when_job_runs, args=(launcher_without_cgroups, recorder)
    )
    killer.start()
    try:
        report = judge_source(add_problem, textwrap.dedent(LINGERING), launcher=recorder)
    finally:
        killer.join()
    assert report.verdict.value in ("RE", "IE", "TLE")
    try:
        assert recorder.jobs[0].pid_ns.members() == [], "the runner returned before the job ended"
    finally:
        recorder.jobs[0].pid_ns.close()


def test_no_process_of_a_job_is_left_after_a_timeout(add_problem, launcher_without_cgroups):
    recorder = RecordingLauncher(launcher_without_cgroups)
    report = judge_source(add_problem, textwrap.dedent(LINGERING), launcher=recorder)
    assert report.verdict.value == "TLE"
    try:
        assert recorder.jobs[0].pid_ns.members() == []
    finally:
        recorder.jobs[0].pid_ns.close()


def test_a_worker_killed_while_another_thread_waits_on_it_raises_a_worker_error(
    launcher_without_cgroups,
):
    """Pins the loaded-run flake of issue 11: kill() closed the socket a job's cleanup was
    selecting on, and the cleanup raised ValueError (a closed descriptor) instead."""
    from runner.worker_process import WorkerError

    (worker,) = launcher_without_cgroups.workers()
    errors: list[BaseException] = []

    def wait_for_a_message() -> None:
        try:
            worker.receive(20.0)
        except BaseException as exc:  # noqa: BLE001 - the test looks at what it was
            errors.append(exc)

    waiter = threading.Thread(target=wait_for_a_message)
    waiter.start()
    time.sleep(0.2)  # the waiter is in select() by now, or will find the socket shut down
    worker.kill()
    waiter.join(10)
    assert not waiter.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], WorkerError), errors


def test_a_job_killed_before_it_read_go_is_a_kill_not_a_runner_crash() -> None:
    """Pins a loaded-run failure: the job's end of the control socket closed with the
    runner's "go" unread, the kernel reset the socket, and cleanup raised
    ConnectionResetError out of the judge."""
    import signal
    import socket

    from runner.job import SandboxJob

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.send(b"go")  # never read by the job
    theirs.close()

    class _Alive:
        def alive(self) -> bool:
            return True

    job = object.__new__(SandboxJob)  # only what _read_exit looks at
    job.ctl, job.worker, job.cgroup, job.pidfd, job._cpu_s = ours, _Alive(), None, -1, 5
    job._keeper_reported = False
    job.device_watcher = None  # a CPU job: no device-memory watcher
    try:
        exit_info = job._read_exit(1.0)
    finally:
        ours.close()
    assert exit_info.signal == signal.SIGKILL and not job._keeper_reported
