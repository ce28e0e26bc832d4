"""A worker starts its next job's processes before the job is sent (runner/standby.py),
and none of them outlives the worker."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import RecordingLauncher

from judge.problem.spec import ProblemSpec
from judge.run.judge_source import judge_source
from runner.launchers.sandbox import SandboxLauncher

_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _started_s(pid: int) -> float:
    """When `pid` started, in seconds since boot (the clock of CLOCK_BOOTTIME)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[19]) * _TICK_S


def _children() -> dict[int, list[int]]:
    """Every live process's children, as the host sees them."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    return children


def _descendants(root: int) -> set[int]:
    """Every live process below `root`."""
    children = _children()
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _standby(bwrap: int) -> tuple[int, int]:
    """The idle worker's standby below bubblewrap's process `bwrap`: (keeper, pid 1), waited
    for (the worker forks it after it reported the last job's end). The worker is the one
    process running Python whose parent does not; the keeper is its child, the pid 1 the
    keeper's."""
    deadline = time.monotonic() + 20
    while True:
        children = _children()
        below = _descendants(bwrap)
        python = {pid for pid in below if _is_python(pid)}
        workers = [pid for pid in python if _parent(pid) not in python]
        if len(workers) == 1:
            keepers = children.get(workers[0], [])
            if len(keepers) == 1 and len(children.get(keepers[0], [])) == 1:
                return keepers[0], children[keepers[0]][0]
        assert time.monotonic() < deadline, f"no standby below {bwrap}: {sorted(below)}"
        time.sleep(0.05)


def _is_python(pid: int) -> bool:
    try:
        return b"python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


class _StartTimes(RecordingLauncher):
    """Records, per job, when it was sent and when its pid 1 had started."""

    sent: list[float]
    started: list[float]

    def launch(self, problem, limits, device=None):  # type: ignore[no-untyped-def]
        sent = time.clock_gettime(time.CLOCK_BOOTTIME)
        handle = super().launch(problem, limits, *(() if device is None else (device,)))
        # The job is alive here: its parent has not sent it a single case yet.
        self.started.append(_started_s(handle.host_pid))
        self.sent.append(sent)
        return handle


@pytest.fixture
def one_worker():
    launcher = SandboxLauncher(pool_size=1, preload=())
    yield launcher
    launcher.close()


def test_a_warm_workers_next_job_runs_in_a_process_started_before_the_job_was_sent(
    one_worker: SandboxLauncher, add_problem: ProblemSpec
) -> None:
    recorder = _StartTimes(one_worker)
    recorder.sent, recorder.started = [], []
    source = add_problem.reference_source()
    for _ in range(2):
        time.sleep(1.0)  # the worker is idle: its standby stands ready
        assert judge_source(add_problem, source, launcher=recorder).verdict.value == "AC"
    for sent, started in zip(recorder.sent, recorder.started, strict=True):
        assert started < sent - 0.5, f"the job's pid 1 started {sent - started:.2f} s before"
    pids = [mark.host_pid for mark in recorder.jobs]
    assert len(set(pids)) == 2, "each job runs in a process of its own"


def test_closing_the_launcher_ends_the_standby_with_its_worker(
    one_worker: SandboxLauncher, add_problem: ProblemSpec
) -> None:
    source = add_problem.reference_source()
    assert judge_source(add_problem, source, launcher=one_worker).verdict.value == "AC"
    (worker,) = one_worker.workers()
    standby = set(_standby(worker.process.pid))
    below = _descendants(worker.process.pid)
    assert standby <= below
    one_worker.close()
    deadline = time.monotonic() + 10
    while _alive(below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(below), "a process of the closed worker is still running"


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists()}


def test_a_standby_killed_before_its_job_costs_the_learner_nothing(
    one_worker: SandboxLauncher, add_problem: ProblemSpec
) -> None:
    """Its worker is the judge's to replace: the submission is judged all the same."""
    source = add_problem.reference_source()
    assert judge_source(add_problem, source, launcher=one_worker).verdict.value == "AC"
    (worker,) = one_worker.workers()
    for pid in _standby(worker.process.pid):
        os.kill(pid, 9)
    report = judge_source(add_problem, source, launcher=one_worker)
    assert report.verdict.value == "AC", report.internal_error
