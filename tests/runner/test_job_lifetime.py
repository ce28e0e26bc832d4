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

from judge.judging import judge_source
from runner.cgroups import CgroupSupport
from runner.launcher import SandboxLauncher

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
    for worker in launcher.pool.workers():
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
