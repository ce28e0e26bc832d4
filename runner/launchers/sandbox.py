"""SandboxLauncher: the core's Launcher, running every job inside the runner's sandbox."""

from __future__ import annotations

import dataclasses
import shutil
import threading

from judge.grading.outcome import ExitInfo
from judge.problem.device import GPU_NODE, Device, DevicePolicy, choose_device
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from runner.cgroups import CgroupSupport, detect, sweep_stale
from runner.device_memory import CUDA_CONTEXT_MB, DeviceMemoryLimit, watch_status
from runner.identity import SandboxIdentity, sandbox_identity
from runner.job import SandboxJob
from runner.layout import CODE_PACKAGES, REPO_ROOT, SandboxLayout, build_layout
from runner.nvml import DeviceMemoryReader, NvmlMissing, open_nvml
from runner.pool import WorkerPool
from runner.torch_library import JOB_LIBRARY, MODEL_PREFIX, TORCH_PRELOAD
from runner.trusted_child import TrustedChild
from runner.trusted_worker_process import TrustedWorkerError, TrustedWorkerProcess
from runner.worker_process import WorkerError, WorkerProcess


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or user namespaces do not work here: no sandboxed judging."""


class SandboxLauncher:
    """Jobs in bubblewrap, forked from warm workers (pool_size > 0) or a fresh one each (0).

    `policy` chooses each job's device (judge/problem/device.py; default auto). `gpu_nodes`
    replaces the device nodes found on the host (/dev/nvidia*, ...): a test's stand-in for
    a GPU on a machine that has none."""

    name = "sandbox"

    def __init__(
        self,
        pool_size: int = 0,
        preload: tuple[str, ...] | None = None,
        *,
        policy: DevicePolicy | None = None,
        gpu_nodes: tuple[str, ...] | None = None,
        trusted_worker: bool | None = None,
    ) -> None:
        """`trusted_worker`: whether torch-tier trusted children are forked from a warm
        trusted worker (runner/trusted_worker.py) or each started cold; by default, as the
        jobs are (warm with pool_size > 0)."""
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
        self.policy = policy or DevicePolicy.AUTO
        self.identity: SandboxIdentity = sandbox_identity()
        self.layout: SandboxLayout = build_layout(self.identity)
        if gpu_nodes is not None:
            self.layout = dataclasses.replace(self.layout, gpu_nodes=gpu_nodes)
        self.cgroups: CgroupSupport = detect()
        sweep_stale(self.cgroups)  # what a runner that was killed could not remove

        self.preload = _available(TORCH_PRELOAD) if preload is None else preload
        self.pools = self._make_pools(pool_size)
        # At most pool_size jobs at once, whichever pools they come from.
        self._job_slots = threading.BoundedSemaphore(pool_size) if pool_size else None
        # One job per GPU at a time: two jobs on one device would see each other's memory use.
        self.gpu_slots = _gpu_slots(self.layout.gpu_nodes, stand_in=gpu_nodes is not None)
        # The driver's view of each GPU job's device memory (runner/device_memory.py).
        self.device_memory: DeviceMemoryReader | NvmlMissing = (
            open_nvml() if self.gpu_slots is not None else NvmlMissing("no NVIDIA GPU here")
        )
        # Where a warm launcher's trusted children are forked from (runner/trusted_worker.py):
        # started on the first one, so a launcher that never paces or drives pays nothing.
        self.forks_trusted = self.warm if trusted_worker is None else trusted_worker
        self._trusted_worker: TrustedWorkerProcess | None = None
        self._trusted_lock = threading.Lock()
        self.trusted_workers_started = 0

    def _make_pools(self, size: int) -> dict[str, WorkerPool]:
        """The pool each tier's jobs are forked from. Warm browser-tier jobs get workers of
        their own without torch: forking a worker that holds torch and the checkpoints, and
        the job's exit, cost a browser-tier job about 20 ms more (docs/BENCHMARKS.md)."""
        torch = WorkerPool(self.layout, self.identity, self.preload, size)
        if size == 0 or not self.preload:  # cold (each job's worker imports its own), or light
            return {"browser": torch, "torch": torch}
        try:
            browser = WorkerPool(self.layout, self.identity, (), size)
        except BaseException:
            torch.close()
            raise
        return {"browser": browser, "torch": torch}

    @property
    def warm(self) -> bool:
        """Whether jobs are forked from warm workers (else a fresh worker per job)."""
        return self.pools["torch"].warm

    def workers(self) -> tuple[WorkerProcess, ...]:
        """Every worker of every pool now, idle or running a job (a snapshot)."""
        return tuple(w for pool in self._distinct_pools() for w in pool.workers())

    @property
    def workers_started(self) -> int:
        """Workers started so far by every pool, replacements included."""
        return sum(pool.started for pool in self._distinct_pools())

    def _distinct_pools(self) -> list[WorkerPool]:
        return list({id(pool): pool for pool in self.pools.values()}.values())

    @property
    def cpu_accounting(self) -> str:
        """How a job's CPU time is counted (runner/job.py): cpu.stat (v2) or cpuacct.usage
        (v1) of its cgroup, else a walk over its pid namespace."""
        if self.cgroups.version:
            return f"the job's cgroup (v{self.cgroups.version})"
        return "the job's pid namespace, walked in /proc"

    def device_for(self, problem: ProblemSpec) -> Device:
        """The device a job of `problem` runs on: CUDA only where this host's sandbox binds
        GPU nodes, the problem lists cuda and the policy allows it (DeviceUnavailable else,
        where the CPU will not do either)."""
        has_gpu = self.gpu_slots is not None
        return choose_device(self.policy, problem.devices, has_gpu, problem.slug)

    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> _PooledJob:
        library = job_library(problem)
        return self.launch_tier(problem.tier, limits, library, device, problem.models)

    def launch_tier(
        self,
        tier: str,
        limits: Limits,
        library: tuple[str, ...] = (),
        device: Device = Device.CPU,
        models: tuple[str, ...] = (),
    ) -> _PooledJob:
        """A job for a problem of `tier` ("browser" or "torch") under `limits`, importing the
        mini_llm modules in `library` (a browser-tier job needs none), on `device` (the
        parent's choice, device_for). Only a CUDA job sees the GPU's device nodes, holds a
        GPU slot and goes without the address-space limit; every other job finds the nodes
        covered by /dev/null and keeps the limit, so a job judged by its CPU time cannot
        move the work to a device the CPU count does not see."""
        gpu_nodes = self.layout.gpu_nodes
        if device is Device.CUDA and self.gpu_slots is None:  # device_for never chooses it here
            raise ValueError("a CUDA job on a host without GPU device nodes")
        on_gpu = device is Device.CUDA
        pool = self.pools["torch" if tier == "torch" else "browser"]
        held = _Slots()
        try:
            held.take(self._job_slots)
            held.take(self.gpu_slots if on_gpu else None)
            # A fresh (cold) worker imports only what the tier needs and loads only the
            # checkpoints its problem names (`models`); warm ones have everything.
            cold = (*self.preload, *(f"{MODEL_PREFIX}{name}" for name in models))
            worker = pool.acquire(cold if tier == "torch" else ())
        except BaseException:
            held.release()
            raise
        try:
            job = SandboxJob(
                worker,
                limits,
                self.cgroups,
                not on_gpu,
                library=library,
                hidden_devices=() if on_gpu else gpu_nodes,
                device_memory=self._device_memory_limit(limits) if on_gpu else None,
            )
        except BaseException:
            pool.release(worker, healthy=False)
            held.release()
            raise
        return _PooledJob(job, pool, held)

    def launch_trusted(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> TrustedChild:
        """A plain child for trusted code in a cgroup made as a job's (runner/trusted_child.py):
        no slot, no sandbox worker, so a paced speed run can never wait on itself for one.
        A warm launcher forks a torch-tier one from its trusted worker, started again if it
        has gone; a cold launcher starts each cold, as it starts each job's worker."""
        if not self.forks_trusted or problem.tier != "torch":
            return TrustedChild(problem, limits, self.cgroups, device)
        worker = self._warm_trusted()
        try:
            return TrustedChild(problem, limits, self.cgroups, device, worker)
        except TrustedWorkerError:  # it went away between two children: once more, afresh
            self._drop_trusted_worker(worker)
            return TrustedChild(problem, limits, self.cgroups, device, self._warm_trusted())

    @property
    def trusted_worker(self) -> TrustedWorkerProcess | None:
        """The trusted worker now, if one has been started (to look at, as workers() is)."""
        return self._trusted_worker

    def _warm_trusted(self) -> TrustedWorkerProcess:
        with self._trusted_lock:
            worker = self._trusted_worker
            if worker is None or not worker.alive():
                if worker is not None:
                    worker.close()
                worker = self._trusted_worker = TrustedWorkerProcess()
                self.trusted_workers_started += 1
            return worker

    def _drop_trusted_worker(self, failed: TrustedWorkerProcess | None = None) -> None:
        """Close the trusted worker: any (on close) or only `failed`, if it is still the one."""
        with self._trusted_lock:
            worker = self._trusted_worker
            if worker is None or (failed is not None and worker is not failed):
                return
            self._trusted_worker = None
        worker.close()

    def _device_memory_limit(self, limits: Limits) -> DeviceMemoryLimit | None:
        """A GPU job's watched limit, CUDA's own context included; None where the driver
        cannot be read (doctor says so)."""
        if isinstance(self.device_memory, NvmlMissing):
            return None
        return DeviceMemoryLimit(self.device_memory, limits.device_limit_mb + CUDA_CONTEXT_MB)

    @property
    def device_memory_watch(self) -> str:
        """How a GPU job's device memory is bounded here, in one line for the doctor."""
        return watch_status(self.device_memory)

    def close(self) -> None:
        for pool in self._distinct_pools():
            pool.close()
        self._drop_trusted_worker()


class _Slots:
    """The semaphores a job holds (its share of the pool size, its GPU), released once."""

    def __init__(self) -> None:
        self._held: list[threading.BoundedSemaphore] = []

    def take(self, slots: threading.BoundedSemaphore | None) -> None:
        if slots is not None:
            slots.acquire()
            self._held.append(slots)

    def release(self) -> None:
        held, self._held = self._held, []
        for slots in reversed(held):
            slots.release()


class _PooledJob:
    """A SandboxJob that gives its worker (and its slots) back when cleaned up."""

    def __init__(self, job: SandboxJob, pool: WorkerPool, held: _Slots) -> None:
        self._job = job
        self._pool = pool
        self._held = held
        self._released = False
        self.request_fd = job.request_fd
        self.result_fd = job.result_fd
        self.stdout_fd = job.stdout_fd
        self.stderr_fd = job.stderr_fd

    @property
    def host_pid(self) -> int:
        return self._job.host_pid

    @property
    def job(self) -> SandboxJob:
        """The job behind this handle (its worker, its cgroup), to look at: the handle's
        own methods are the way to drive it."""
        return self._job

    def close_requests(self) -> None:
        self._job.close_requests()
        self.request_fd = -1

    def kill(self) -> None:
        self._job.kill()

    def cpu_seconds(self) -> float | None:
        return self._job.cpu_seconds()

    def pause(self) -> None:
        self._job.pause()

    def resume(self) -> None:
        self._job.resume()

    def wait(self, timeout: float) -> ExitInfo:
        return self._job.wait(timeout)

    def cleanup(self) -> None:
        self._job.cleanup()
        if self._released:
            return
        self._released = True
        self._pool.release(self._job.worker, self._job.healthy)
        self._held.release()


def _gpu_slots(nodes: tuple[str, ...], stand_in: bool) -> threading.BoundedSemaphore | None:
    """One slot per NVIDIA GPU (/dev/nvidia0, /dev/nvidia1, ...); none without one (a render
    node of another vendor's GPU is bound, and covered, but CUDA cannot use it). A test's
    stand-in nodes count as one GPU."""
    gpus = sum(1 for n in nodes if GPU_NODE.match(n))
    if stand_in and nodes:
        gpus = max(gpus, 1)
    return threading.BoundedSemaphore(gpus) if gpus else None


def job_library(problem: ProblemSpec) -> tuple[str, ...]:
    """The mini_llm modules a job of `problem` imports: none for the browser tier; for the
    torch tier every module of JOB_LIBRARY the problem does not withhold."""
    if problem.tier != "torch":
        return ()
    return tuple(m for m in _available(JOB_LIBRARY) if m not in problem.withheld)


def _available(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules a worker can import: installed packages, or packages bound from the repo."""
    import importlib.util

    found = []
    for name in modules:
        top, _, rest = name.partition(".")
        if top in CODE_PACKAGES:  # looked up as files: find_spec would import the package
            module = REPO_ROOT / top / (rest.replace(".", "/") + ".py" if rest else "__init__.py")
            if module.is_file():
                found.append(name)
        elif importlib.util.find_spec(name) is not None:
            found.append(name)
    return tuple(found)


__all__ = ["SandboxLauncher", "SandboxUnavailable", "WorkerError", "job_library"]
