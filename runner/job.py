"""One running job in a worker: the core's ChildHandle, with the runner's walls around it.

Lifecycle: the runner creates the job's pipes and control socket, hands the child
ends to a worker, and waits for the job's pid 1 to say hello. The kernel attaches the
sender's credentials to that message (SO_PASSCRED), translated into the runner's pid
namespace, so the runner learns the job's host pid without trusting anything the job
says. It opens a pidfd on it (no pid-reuse races), moves it into the job's cgroup,
and answers "go". Killing the job is one signal to that pidfd: the job's pid 1 dies,
and with it, by the kernel's pid-namespace rule, every process the job started.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import signal
import socket
import struct
from typing import Any

from judge.grading.outcome import DeviceMemoryOverrun, ExitInfo
from judge.problem.limits import Limits
from runner.cgroups import CgroupSupport, JobCgroup
from runner.device_memory import DeviceMemoryLimit, DeviceMemoryWatcher
from runner.pidns import PidNamespace
from runner.worker_process import WorkerError, WorkerProcess

HANDSHAKE_TIMEOUT_S = 10.0
_UCRED = struct.Struct("3i")  # pid, uid, gid
_SLACK_MB = 64  # interpreter pages a forked job dirties (copy-on-write) before it does anything


def job_limits(
    limits: Limits,
    address_space: bool,
    library: tuple[str, ...] = (),
    hidden_devices: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The limits message a worker applies in the job (see runner.jobspace.JobLimits);
    `library`: the mini_llm modules the job may use (any others are withheld from it);
    `hidden_devices`: device nodes the sandbox binds that this job must not reach."""
    return {
        "library": list(library),
        "hidden_devices": list(hidden_devices),
        "cpu_s": math.ceil(limits.total_time_s) + 1,
        "memory_mb": limits.memory_mb,
        "max_processes": limits.max_processes,
        "max_file_bytes": limits.max_file_bytes,
        "max_open_files": limits.max_open_files,
        "tmpfs_mb": tmpfs_mb(limits),
        "address_space": address_space,
    }


def tmpfs_mb(limits: Limits) -> int:
    """Each of /tmp, /dev/shm and /box gets this much; tmpfs pages count as job memory."""
    return max(8, min(64, limits.memory_mb // 4))


class SandboxJob:
    """ChildHandle for a job forked by a warm (or one-shot) worker."""

    def __init__(
        self,
        worker: WorkerProcess,
        limits: Limits,
        cgroups: CgroupSupport,
        address_space: bool,
        library: tuple[str, ...] = (),
        hidden_devices: tuple[str, ...] = (),
        device_memory: DeviceMemoryLimit | None = None,
    ) -> None:
        self.worker = worker
        self._exit: ExitInfo | None = None
        self._cleaned = False
        self._cpu_s = math.ceil(limits.total_time_s) + 1
        self.host_pid = -1  # the job's pid 1 in the runner's pid namespace, after the handshake
        self.healthy = False  # set by cleanup(): may the worker take another job?
        self.pidfd = -1
        self.request_fd = self.result_fd = self.stdout_fd = self.stderr_fd = -1
        self.ctl: socket.socket | None = None
        self.cgroup: JobCgroup | None = None
        self.pid_ns: PidNamespace | None = None
        # A GPU job's device memory, read through the driver while it runs (None: a CPU job,
        # or no driver library: the launcher's doctor line says which).
        self._device_memory = device_memory
        self.device_watcher: DeviceMemoryWatcher | None = None
        # The keeper reports only after wait4 on the job's pid 1 returned, which the kernel
        # allows only once every other process of its pid namespace has been reaped.
        self._keeper_reported = False
        try:
            self._start(limits, cgroups, job_limits(limits, address_space, library, hidden_devices))
        except BaseException:
            self.cleanup()
            raise

    def _start(self, limits: Limits, cgroups: CgroupSupport, message: dict[str, Any]) -> None:
        if cgroups.version:
            memory = (limits.memory_mb + 3 * tmpfs_mb(limits) + _SLACK_MB) << 20
            self.cgroup = JobCgroup(cgroups, memory, limits.max_processes + 4)
        req_r, self.request_fd = os.pipe()
        self.result_fd, res_w = os.pipe()
        self.stdout_fd, out_w = os.pipe()
        self.stderr_fd, err_w = os.pipe()
        self.ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ctl.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        child_ends = [theirs.fileno(), req_r, res_w, out_w, err_w]
        if self.cgroup is not None:
            task_files = self.cgroup.open_task_files()
            message["cgroup_files"] = len(task_files)
            child_ends += task_files
        try:
            self.worker.send_job(message, child_ends)
        finally:  # the worker has its own copies now (or never will)
            theirs.close()
            for fd in child_ends[1:]:
                os.close(fd)
        self._handshake()

    def _handshake(self) -> None:
        assert self.ctl is not None  # set by _start; an invariant, not input validation
        readable, _, _ = select.select([self.ctl], [], [], HANDSHAKE_TIMEOUT_S)
        if not readable:
            raise WorkerError("the job did not start within the handshake timeout")
        data, ancdata, _flags, _addr = self.ctl.recvmsg(64, socket.CMSG_SPACE(_UCRED.size))
        wanted = (socket.SOL_SOCKET, socket.SCM_CREDENTIALS)
        creds = [d for level, kind, d in ancdata if (level, kind) == wanted]
        if data != b'{"hello": true}' or len(creds) != 1:
            raise WorkerError(f"unexpected job handshake {data[:40]!r}: {self._stderr_tail()}")
        pid, _uid, _gid = _UCRED.unpack(creds[0][: _UCRED.size])
        self.pidfd = os.pidfd_open(pid)
        self.pid_ns = PidNamespace(pid)
        try:  # the pid could have been reused before the pidfd was opened
            signal.pidfd_send_signal(self.pidfd, 0)
        except ProcessLookupError:
            raise WorkerError("the job's pid 1 exited during the handshake") from None
        self.host_pid = pid
        if self.cgroup is not None:
            self.cgroup.ensure(pid)
        self._watch_device_memory(self.pid_ns)
        self.ctl.send(b"go")

    def _watch_device_memory(self, pid_ns: PidNamespace) -> None:
        """Started before "go": the job holds no device memory before its code runs."""
        if self._device_memory is None:
            return
        self.device_watcher = DeviceMemoryWatcher(
            self._device_memory.reader, self._device_memory.limit_mb, pid_ns.members, self.kill
        )
        self.device_watcher.start()

    def _stderr_tail(self) -> str:
        """What the job's setup printed before failing (for the IE report's admin detail)."""
        readable, _, _ = select.select([self.stderr_fd], [], [], 1.0)
        return os.read(self.stderr_fd, 4096).decode("utf-8", "replace") if readable else ""

    def close_requests(self) -> None:
        """End of requests; the descriptor is closed here once and forgotten."""
        _close_quietly(self.request_fd)
        self.request_fd = -1

    def cpu_seconds(self) -> float | None:
        """The job's CPU time: its cgroup's count (every process it ever ran), else the sum
        over its pid namespace (which no process of the job can leave)."""
        if self.cgroup is not None:
            used = self.cgroup.cpu_seconds()
            if used is not None:
                return used
        return self.pid_ns.cpu_seconds() if self.pid_ns is not None else None

    def kill(self) -> None:
        """SIGKILL the job's pid 1 (the kernel then kills its whole pid namespace)."""
        if self.pidfd >= 0:
            # Its whole pid namespace dies with it; cleanup() still sweeps the cgroup.
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            if self.cgroup is not None and self.cgroup.can_freeze:
                self.cgroup.thaw()  # a frozen pid 1 dies only once thawed (cgroup v1)
        elif self.cgroup is not None:
            self.cgroup.kill_all()

    def pause(self) -> None:
        """Stop every process of the job until resume(): as one unit, by the cgroup freezer,
        where the job has one (a chain of processes that fork and exit cannot outrun it);
        else, and where the freezer did not finish, by SIGSTOP to each member of its pid
        namespace, pass by pass (runner/pidns.py)."""
        frozen = self.cgroup is not None and self.cgroup.can_freeze and self.cgroup.freeze()
        if not frozen and self.pid_ns is not None:
            self.pid_ns.stop_all()

    def resume(self) -> None:
        if self.cgroup is not None and self.cgroup.can_freeze:
            self.cgroup.thaw()
        if self.pid_ns is not None:
            self.pid_ns.continue_all()

    def wait(self, timeout: float) -> ExitInfo:
        if self._exit is None:
            self._exit = self._read_exit(timeout)
        return self._exit

    def _read_exit(self, timeout: float) -> ExitInfo:
        if self.ctl is None:  # the job never started
            return ExitInfo(None, signal.SIGKILL)
        readable, _, _ = select.select([self.ctl], [], [], timeout)
        if not readable:
            self.kill()
            readable, _, _ = select.select([self.ctl], [], [], 5.0)
        try:
            data = self.ctl.recv(4096) if readable else b""
        except ConnectionResetError:
            # A job killed before it read the runner's "go" dies with that message unread,
            # and the kernel then resets the socket instead of handing over the keeper's
            # report: no report, and emptiness is then checked in /proc (cleanup).
            data = b""
        report = _parse_exit(data)
        if report is None:
            if not self.worker.alive():  # the judge's failure (IE, retried), not the job's
                raise WorkerError("the worker died while running the job")
            return ExitInfo(None, signal.SIGKILL, device_memory=self._overrun())
        self._keeper_reported = True
        returncode, sig, cpu_s = report
        oom = self.cgroup is not None and self.cgroup.oom_killed()
        over_cpu = sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= self._cpu_s)
        return ExitInfo(
            returncode, sig, oom_killed=oom, cpu_limit=over_cpu, device_memory=self._overrun()
        )

    def _overrun(self) -> DeviceMemoryOverrun | None:
        """Why the watcher killed the job, if it did (recorded before its kill)."""
        return self.device_watcher.overrun if self.device_watcher is not None else None

    def cleanup(self) -> None:
        """Kill, reap, remove the cgroup, close every descriptor; tell the pool how it went.

        Returns only once no process of the job is left: the keeper's exit report proves
        it, else the runner itself looks for the job's pid namespace in /proc."""
        if self._cleaned:
            return
        self._cleaned = True
        if self.device_watcher is not None:
            # Stopped before any descriptor closes: its kill() must never reach a reused pidfd.
            self.device_watcher.stop()
        try:
            self.kill()
            if self.pidfd >= 0:
                self.wait(5.0)
        except WorkerError:
            self.healthy = False
            return  # the pool kills this worker; its sandbox and the job go with it
        finally:
            emptied = self._wait_pid_ns_empty()
            self._release_resources()
        # Waited for, not deferred to the worker's next job: the keeper holds the job's mount
        # namespace, and with it the memory of the job's scratch filesystems.
        self.healthy = emptied and self._worker_done()

    def _wait_pid_ns_empty(self) -> bool:
        if self.pid_ns is None or self._keeper_reported:
            return True
        return self.pid_ns.wait_empty(10.0)

    def _release_resources(self) -> None:
        for fd in (self.request_fd, self.result_fd, self.stdout_fd, self.stderr_fd, self.pidfd):
            _close_quietly(fd)
        self.request_fd = self.result_fd = self.stdout_fd = self.stderr_fd = self.pidfd = -1
        if self.ctl is not None:
            self.ctl.close()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.pid_ns is not None:
            self.pid_ns.close()

    def _worker_done(self) -> bool:
        try:
            message = self.worker.receive(10.0)
        except WorkerError:
            return False
        return message.get("done") is True and message.get("keeper_status") == 0


def _parse_exit(data: bytes) -> tuple[int | None, int | None, float] | None:
    """The keeper's exit report: (returncode, signal, CPU seconds), or None if malformed."""
    try:
        message = json.loads(data)
        report = message["exit"]
        returncode, sig, cpu_s = report["returncode"], report["signal"], report["cpu_s"]
    except (ValueError, KeyError, TypeError):
        return None
    if not all(v is None or type(v) is int for v in (returncode, sig)):
        return None
    if type(cpu_s) is not float:
        return None
    return returncode, sig, cpu_s


def _close_quietly(fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
