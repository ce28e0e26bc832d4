"""A child for trusted code beside the jobs: a speed problem's reference, timed in turn with one.

The parent times the reference on each timed case just before the submission's repetition
(judge/run/pacer.py). Run in the parent itself it would not be weighed as a job is: a job
has a cgroup of its own, which the kernel's scheduler weighs as one entity, while the
parent's thread shares its session's autogroup with every thread and child of the server
(two busy loops started by the parent's process halved the reference's share and doubled
every ratio). So the reference runs in a plain child (not sandboxed: it is the problem's
own code) moved into a cgroup made exactly as a job's is (runner/cgroups.py), with the
same CPU quota and the same weight.

A torch-tier child is forked from the launcher's trusted worker (runner/trusted_worker.py),
which has torch, mini_llm and the checkpoints loaded; a cold child would spend 1-3 s on them
before its first case. A browser-tier child (no torch) is started cold, as before.
"""

from __future__ import annotations

from judge.grading.outcome import ExitInfo
from judge.problem.device import Device
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.run.launch import LocalProcess, child_config
from judge.run.workdir import WorkDir
from runner.cgroups import CgroupSupport, JobCgroup
from runner.trusted_worker_process import ForkedChild, TrustedWorkerProcess

# The reference imports torch and builds its model like a job, unsandboxed: headroom over the
# problem's own memory limit for what the sandbox would have shared from the warm worker.
_EXTRA_MB = 1024
_MAX_TASKS = 64  # threads count as tasks in the pids controller


class TrustedChild:
    """ChildHandle of a trusted child in a cgroup of its own; removed with it on cleanup."""

    def __init__(
        self,
        problem: ProblemSpec,
        limits: Limits,
        cgroups: CgroupSupport,
        device: Device = Device.CPU,
        worker: TrustedWorkerProcess | None = None,
    ) -> None:
        """`worker` forks a torch-tier child; without one (or for the browser tier) the child
        is a cold `python -I`."""
        self._workdir = WorkDir()
        self._cgroup: JobCgroup | None = None
        self._process: LocalProcess | ForkedChild
        try:
            if worker is not None and problem.tier == "torch":
                config = child_config(limits, problem.tier, device)
                self._process = worker.fork(config, self._workdir.path)
            else:
                self._process = LocalProcess(problem, limits, self._workdir.path, device=device)
        except BaseException:
            self._workdir.remove()
            raise
        try:
            if cgroups.version:
                memory = (limits.memory_mb + _EXTRA_MB) << 20
                self._cgroup = JobCgroup(cgroups, memory, _MAX_TASKS)
                self._cgroup.add(self._process.pid)
        except BaseException:
            self.cleanup()
            raise
        self.request_fd = self._process.request_fd
        self.result_fd = self._process.result_fd
        self.stdout_fd = self._process.stdout_fd
        self.stderr_fd = self._process.stderr_fd

    @property
    def pid(self) -> int:
        return self._process.pid

    def close_requests(self) -> None:
        self._process.close_requests()
        self.request_fd = -1

    def kill(self) -> None:
        self._process.kill()

    def wait(self, timeout: float) -> ExitInfo:
        return self._process.wait(timeout)

    def cpu_seconds(self) -> float | None:
        return self._process.cpu_seconds()

    def pause(self) -> None:
        self._process.pause()

    def resume(self) -> None:
        self._process.resume()

    def cleanup(self) -> None:
        self._process.cleanup()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        self._workdir.remove()


__all__ = ["TrustedChild"]
