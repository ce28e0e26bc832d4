"""Fixtures for the runner suite: one warm sandbox shared by the module, and job accounting.

Every test goes through the real sandbox (bubblewrap, namespaces, seccomp, cgroups when
the host has them). The suite is skipped only where bubblewrap or user namespaces are
missing; CI runs it as root, which is also how the server runs.
"""

from __future__ import annotations

import gc
import os
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from problem_factory import write_add_problem
from sandbox_host import sandbox_missing

from judge.grading.report import Report
from judge.problem.device import Device
from judge.problem.limits import Limits
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import judge_source
from runner.identity import sandbox_identity
from runner.launchers.sandbox import SandboxLauncher
from runner.pidns import PidNamespace

REPO = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = sandbox_missing()
    for item in items:
        if "tests/runner" in str(item.fspath):
            item.add_marker(pytest.mark.sandbox)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@dataclass(frozen=True, slots=True)
class JobMark:
    """How to recognise one job's processes afterwards: its pid namespace is unique to it.

    The test holds the namespace open itself, so its inode number cannot be given to a
    later namespace while the test looks for leftovers (a false "job left processes")."""

    host_pid: int
    pid_ns: PidNamespace
    cgroup_dirs: tuple[Path, ...]


@dataclass
class RecordingLauncher:
    """Wraps the real launcher and remembers every job it started."""

    inner: SandboxLauncher
    name: str = "sandbox"
    jobs: list[JobMark] = field(default_factory=list)

    def device_for(self, problem: ProblemSpec) -> Device:
        return self.inner.device_for(problem)

    def launch(self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU):  # type: ignore[no-untyped-def]
        handle = self.inner.launch(problem, limits, device)
        job = handle.job
        dirs = tuple(job.cgroup.dirs.values()) if job.cgroup else ()
        self.jobs.append(JobMark(handle.host_pid, PidNamespace(handle.host_pid), dirs))
        return handle

    def launch_trusted(self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU):  # type: ignore[no-untyped-def]
        return self.inner.launch_trusted(problem, limits, device)


def sandbox_owned_files(uid: int) -> list[str]:
    """Files on the host's shared scratch space owned by the sandbox user (there must be none)."""
    owned = []
    for top in ("/tmp", "/dev/shm", "/var/tmp"):
        for entry in os.scandir(top):
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    owned.append(entry.path)
            except OSError:
                continue
    return owned


# How long a file owned by the sandbox user may take to go away before it counts as left
# behind: the web suite's unsafe-local jobs (the same user, run beside these tests by another
# test worker) keep a working folder in /tmp while they run and remove it when they end;
# what a sandboxed job left behind never goes away.
SETTLE_S = 60.0


def new_sandbox_owned_files(uid: int, before: set[str]) -> set[str]:
    """Files owned by the sandbox user that were not there `before` and are still there
    after up to SETTLE_S (polled, so a clean run pays nothing)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        new = set(sandbox_owned_files(uid)) - before
        if not new or time.monotonic() > deadline:
            return new
        time.sleep(0.5)


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _open_fds() -> int:
    gc.collect()  # objects of earlier tests closing their descriptors late is not a leak here
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="session")
def add_problem(tmp_path_factory: pytest.TempPathFactory) -> ProblemSpec:
    """The tests' "add" problem with short limits, so TLE tests take about a second."""
    root = tmp_path_factory.mktemp("problems")
    write_add_problem(root, per_case=1.0, total=4.0)
    return ProblemSet(root).get("add")


@pytest.fixture(scope="session")
def warm_launcher() -> Iterator[SandboxLauncher]:
    """One warm worker (torch preloaded, as on the server) shared by the whole suite."""
    launcher = SandboxLauncher(pool_size=1)
    yield launcher
    launcher.close()


@dataclass
class Harness:
    launcher: RecordingLauncher
    problem: ProblemSpec
    uid: int

    def judge(self, source: str, problem: ProblemSpec | None = None) -> Report:
        return judge_source(
            problem or self.problem, textwrap.dedent(source), launcher=self.launcher
        )

    def assert_contained(self) -> None:
        """No process of any job is left, and its cgroups are gone (checked the moment the
        runner has returned: it must not report a job over while its processes live)."""
        try:
            for job in self.launcher.jobs:
                assert job.pid_ns.members() == [], f"job {job.host_pid} left processes"
                for path in job.cgroup_dirs:
                    assert not path.exists(), f"cgroup {path} was not removed"
        finally:
            for job in self.launcher.jobs:
                job.pid_ns.close()


@pytest.fixture
def harness(warm_launcher: SandboxLauncher, add_problem: ProblemSpec) -> Iterator[Harness]:
    """Judge through the shared sandbox; afterwards check that a normal submission is still
    judged AC by the same warm worker, that no process of any job is left, and that no file
    outside the job changed."""
    uid = sandbox_identity().uid
    before = {root: tree_snapshot(root) for root in (REPO / "judge", REPO / "runner")}
    before[add_problem.path] = tree_snapshot(add_problem.path)
    h = Harness(RecordingLauncher(warm_launcher), add_problem, uid)
    workers_before = warm_launcher.workers_started
    # What earlier runs left (a killed server's folders) is not this test's doing.
    owned_before = set(sandbox_owned_files(uid)) if sandbox_identity().switched else set()
    fds_before = _open_fds()
    yield h
    normal = h.judge(add_problem.reference_source())
    assert normal.verdict.value == "AC", normal.to_dict()
    assert warm_launcher.workers_started == workers_before, "the job took its warm worker down"
    h.assert_contained()
    assert _open_fds() <= fds_before, "the runner leaked descriptors"
    for root, snapshot in before.items():
        assert tree_snapshot(root) == snapshot, f"{root} changed"
    if sandbox_identity().switched:
        assert new_sandbox_owned_files(uid, owned_before) == set()
