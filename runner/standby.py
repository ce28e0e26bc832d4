"""The next job's two processes, started by a worker before the job arrives.

Each job runs in two processes forked from the worker:

    worker ── fork ──> keeper (new user/pid/mount/ipc namespaces; waits, reports status)
                          └── fork ──> job pid 1 (mounts, handshake, rlimits, caps, seccomp,
                                                  then judge.run.child.serve(3, 4))

The keeper exists because a new pid namespace only applies to the children of the
process that unshared it. Each fork copies the page tables of a worker that holds torch,
and with the namespaces and /proc they were spent after the job had been sent: 2-3 ms of
each warm torch job's overhead on a 2-core Xeon (docs/BENCHMARKS.md). So a worker starts
the processes of its next job as soon as the last one ended (and before its first): the
keeper unshares, forks the pid 1, and both wait on their own socket pair with the worker.
A job handed over then only moves its descriptors: the keeper gets the control socket (for
its exit report), the pid 1 every descriptor and the limits, and the job's own setup
(cgroups, scratch mounts, library, handshake, walls) runs as before, before any untrusted
code.

A standby runs nothing of anyone's until its job is handed over, and holds nothing of a
job before that: no two jobs share one. A standby whose worker goes away reads end of file
and exits (the keeper kills the pid 1 it waits for).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runner.jobspace import (
    JOB_DIR,
    MAX_CGROUP_FILES,
    JobLimits,
    drop_capabilities,
    enter_job_namespaces,
    hide_devices,
    load_library,
    mount_proc,
    mount_scratch,
    set_rlimits,
    single_thread_torch,
)

if TYPE_CHECKING:
    from runner.weight_image import WeightImage

MESSAGE_BYTES = 1 << 16
JOB_FDS = 5  # control socket, request read end, result write end, stdout, stderr
_STATUS_FD = 5
_CGROUP_FD = 6  # then the job's cgroup task files, if the runner sent any (JobLimits)
_CHANNEL_FLOOR = 64  # a standby's channel sits above every slot a job's descriptors take
_FAILED = 70  # a keeper's exit code when its own setup broke: the worker is retired


@dataclass(frozen=True, slots=True)
class Walls:
    """What every job of one worker is set up with, fixed when the worker started."""

    uid: int
    gid: int
    seccomp: Any  # the worker's filter (pyseccomp), loaded by each job's pid 1
    weights: WeightImage | None  # a warm worker's checkpoints (runner/weight_image.py)


class Standby:
    """The worker's handle on one started keeper and its pid 1, waiting for a job."""

    def __init__(self, keeper_pid: int, keeper: socket.socket, job: socket.socket) -> None:
        self.keeper_pid = keeper_pid
        self._keeper = keeper
        self._job = job

    @classmethod
    def start(cls, walls: Walls) -> Standby:
        keeper_ours, keeper_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        job_ours, job_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                _keeper(keeper_theirs.detach(), job_theirs.detach(), walls)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(_FAILED)
        keeper_theirs.close()
        job_theirs.close()
        return cls(pid, keeper_ours, job_ours)

    def alive(self) -> bool:
        """Whether both processes still wait: neither ever writes to the worker, so anything
        to read on a channel is its end of file (one was killed while standing by)."""
        poll = select.poll()
        for channel in (self._keeper, self._job):
            poll.register(channel, select.POLLIN)
        return not poll.poll(0)

    def run(self, message: bytes, fds: list[int]) -> int:
        """Hand the job over, close the worker's copies of its descriptors and wait until
        the keeper reported the job's end; the keeper's exit code (0 when all went well).

        The keeper gets the control socket first: a job whose keeper is gone must not run,
        and the runner then sees its control socket closed before any hello."""
        try:
            socket.send_fds(self._keeper, [b"job"], fds[:1])
            socket.send_fds(self._job, [message], fds)
        except OSError:
            traceback.print_exc()
        finally:
            for fd in fds:
                os.close(fd)
            self._close_channels()
        _, status = os.waitpid(self.keeper_pid, 0)
        return os.waitstatus_to_exitcode(status)

    def discard(self) -> None:
        """No job for it: its processes read end of file and exit."""
        self._close_channels()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.keeper_pid, 0)

    def _close_channels(self) -> None:
        self._keeper.close()
        self._job.close()


def _keeper(keeper_fd: int, job_fd: int, walls: Walls) -> None:
    """Unshare the job's namespaces, fork its pid 1, then wait for the job's control socket
    and report on it how the pid 1 ended."""
    keeper_fd = _dup_above(keeper_fd, _CHANNEL_FLOOR)
    job_fd = _dup_above(job_fd, _CHANNEL_FLOOR)
    _close_all_but(sorted((keeper_fd, job_fd)))
    enter_job_namespaces(walls.uid, walls.gid)
    pid = os.fork()
    if pid == 0:
        code = _FAILED
        try:
            os.close(keeper_fd)
            _job_pid1(job_fd, walls)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            _flush_quietly()
            os._exit(code)
    os.close(job_fd)
    channel = socket.socket(fileno=keeper_fd)
    _data, fds, _flags, _addr = socket.recv_fds(channel, 16, 1)
    channel.close()
    if len(fds) != 1:  # the worker retired: no job will come
        for fd in fds:
            os.close(fd)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os._exit(0)
    os.dup2(fds[0], _STATUS_FD)
    os.close(fds[0])
    _, status, usage = os.wait4(pid, 0)
    # CPU seconds of the job's pid 1 and the children it reaped: tells the runner whether
    # a SIGKILL came from the hard RLIMIT_CPU (a TLE) or from anything else.
    report: dict[str, object] = {"returncode": None, "signal": None}
    report["cpu_s"] = usage.ru_utime + usage.ru_stime
    if os.WIFSIGNALED(status):
        report["signal"] = os.WTERMSIG(status)
    else:
        report["returncode"] = os.WEXITSTATUS(status)
    os.write(_STATUS_FD, json.dumps({"exit": report}).encode())
    os._exit(0)


def _job_pid1(job_fd: int, walls: Walls) -> None:
    """Ready what every job needs, wait for this one, set it up and serve it."""
    mount_proc()
    if walls.weights is not None:
        walls.weights.allow_private_writes()
    channel = socket.socket(fileno=job_fd)
    data, fds, _flags, _addr = socket.recv_fds(channel, MESSAGE_BYTES, JOB_FDS + MAX_CGROUP_FILES)
    channel.detach()  # _place_fds closes it with everything else the worker had open
    if not data:
        os._exit(0)  # the worker retired: no job will come
    limits = JobLimits.from_json(json.loads(data))  # checked by the worker already
    _place_fds(fds)
    _join_cgroups(limits)
    mount_scratch(limits.tmpfs_mb)
    hide_devices(limits.hidden_devices)
    load_library(limits.library)  # the problem's part of mini_llm, then its folder is covered
    os.chdir(JOB_DIR)
    os.environ.update(HOME=JOB_DIR, TMPDIR="/tmp")
    os.write(_STATUS_FD, b'{"hello": true}')
    if os.read(_STATUS_FD, 16) != b"go":
        raise RuntimeError("the runner did not confirm the job's cgroup")
    os.close(_STATUS_FD)
    # Its own session and process group: kill(0, ...) must not reach the worker's group.
    os.setsid()
    set_rlimits(limits)
    drop_capabilities()
    walls.seccomp.load()
    single_thread_torch()
    from judge.run.child import serve

    serve(3, 4)


def _place_fds(fds: list[int]) -> None:
    """Put the job's descriptors at 0..5, its cgroup task files from 6 on, and close
    everything else the worker had open."""
    # First move every descriptor above the target slots, so no dup2 overwrites a source.
    ctl, request, result, out, err, *cgroup = (_dup_above(fd, _CHANNEL_FLOOR) for fd in fds)
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out, 1), (err, 2), (request, 3), (result, 4), (ctl, 5)):
        os.dup2(source, target)
    for i, source in enumerate(cgroup):
        os.dup2(source, _CGROUP_FD + i)
    os.closerange(_CGROUP_FD + len(cgroup), os.sysconf("SC_OPEN_MAX"))


def _close_all_but(keep: list[int]) -> None:
    """Close every descriptor the worker had open (the runner's socket, the channels of
    this standby's worker ends) except the standard three and `keep`, in ascending order."""
    low = 3
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _dup_above(fd: int, floor: int) -> int:
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, floor)
    os.close(fd)
    return new


def _join_cgroups(limits: JobLimits) -> None:
    """Move this (single-threaded) process into the job's cgroups by writing "0" to their
    v1 task files, which the runner opened for it.

    The kernel lets a single thread that moves itself skip the global lock every other
    move takes, whose RCU grace period cost each job 7-14 ms. The runner checks the result
    and moves the job itself if this did not work."""
    for fd in range(_CGROUP_FD, _CGROUP_FD + limits.cgroup_files):
        with contextlib.suppress(OSError):
            os.write(fd, b"0")
        os.close(fd)


def _flush_quietly() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
