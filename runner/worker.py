"""A warm worker: runs inside bubblewrap, imports the heavy modules once, forks one job at a time.

No submitted code ever runs in this process. For each job it receives five file
descriptors from the runner (the job's control socket, the request and result pipe
ends, stdout and stderr) and forks:

    worker ── fork ──> keeper (new user/pid/mount/ipc namespaces; waits, reports status)
                          └── fork ──> job pid 1 (mounts, handshake, rlimits, caps, seccomp,
                                                  then judge.run.child.serve(3, 4))

The keeper exists because a new pid namespace only applies to the children of the
process that unshared it. The job's pid 1 says hello on the control socket before it
runs anything untrusted; the runner learns its host pid from the socket credentials,
puts it in the job's cgroup and answers "go". The job then closes the control socket,
so the submission holds nothing but its own pipes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import traceback
from typing import TYPE_CHECKING, Any

from runner.fork_heap import prepare_for_forks
from runner.jobspace import (
    JOB_DIR,
    MAX_CGROUP_FILES,
    JobLimits,
    drop_capabilities,
    enter_job_namespaces,
    hide_devices,
    load_library,
    make_undumpable,
    mount_job_filesystems,
    set_rlimits,
)
from runner.seccomp_policy import build_filter
from runner.torch_library import MODEL_PREFIX

if TYPE_CHECKING:
    from runner.weight_image import WeightImage as _WeightImage

MESSAGE_BYTES = 1 << 16
JOB_FDS = 5  # control socket, request read end, result write end, stdout, stderr
_STATUS_FD = 5
_CGROUP_FD = 6  # then the job's cgroup task files, if the runner sent any (JobLimits)


def main() -> None:
    """Entry point inside the sandbox: argv = [sock_fd, uid, gid, warm|cold, preload modules...]
    (a warm worker forks many jobs, a cold one a single job)."""
    sock_fd, uid, gid = (int(arg) for arg in sys.argv[1:4])
    make_undumpable()
    warm = sys.argv[4] == "warm"
    loaded = _preload(sys.argv[5:], warm)
    # A warm worker forks many jobs: its objects frozen, malloc's free pages given back and
    # the heap in huge pages make each fork, the job's writes and its exit cheaper
    # (runner/fork_heap.py). A cold one forks once, and that would cost more than it saves.
    huge = prepare_for_forks() if warm else 0
    flt = build_filter()
    sock = socket.socket(fileno=sock_fd)
    sock.send(json.dumps({"ready": True, "preloaded": loaded, "huge_page_bytes": huge}).encode())
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(
                sock, MESSAGE_BYTES, JOB_FDS + MAX_CGROUP_FILES
            )
        except ConnectionError:
            return  # the runner is gone or is killing this sandbox
        if not data:
            return  # the runner closed the socket: retire
        limits = JobLimits.from_json(json.loads(data))
        if len(fds) != JOB_FDS + limits.cgroup_files:
            _close_all(fds)
            error = f"expected {JOB_FDS + limits.cgroup_files} fds, got {len(fds)}"
            sock.send(json.dumps({"done": False, "error": error}).encode())
            continue
        status = _run_one(sock, fds, limits, uid, gid, flt)
        sock.send(json.dumps({"done": True, "keeper_status": status}).encode())


# A warm worker's checkpoints, moved where forking a job copies no page tables for them.
_weights: _WeightImage | None = None


def _preload(wanted: list[str], warm: bool) -> list[str]:
    """Import what jobs will need, so that no job pays for it (never touches CUDA). Entries
    `model:NAME` are checkpoints: a fresh (cold) worker loads those alone, the ones its job's
    problem names (problem.toml `models`); a warm worker loads every checkpoint."""
    global _weights  # set once, before the first fork
    # The loop every job runs, the finder of a problem that withholds a part, and what the
    # loop imports only when a job asks: the device a job's load names (every torch problem's
    # cases read it), a capstone's hosted engine, the CPU rule's process filter. Imported in
    # each job, those were 4-5 ms of it on a 2-core Xeon: a fork's first writes make an import
    # dearer there than in a fresh interpreter.
    import judge.problem.withheld
    import judge.run.child
    import judge.run.job_device
    import judge.run.remote
    import judge.run.threads_only  # noqa: F401 (imported for the forks, not used here)

    # Loading a model sets TORCHINDUCTOR_CACHE_DIR (naming the worker's user, under /tmp);
    # a job gets the environment bubblewrap gave the worker, nothing preloading added.
    environment = dict(os.environ)
    modules = [name for name in wanted if not name.startswith(MODEL_PREFIX)]
    models = tuple(name[len(MODEL_PREFIX) :] for name in wanted if name.startswith(MODEL_PREFIX))
    for name in modules:
        __import__(name)
    loaded = list(modules)
    # Before any torch op runs here: a pool of OpenMP threads started in the worker is not
    # inherited by its forks, and a job that then asked for two threads hung in libgomp.
    _single_thread_torch()
    zoo = sys.modules.get("mini_llm.zoo")
    if zoo is not None:
        # The problems' checkpoints, read once here: every job forked from this worker finds
        # them in memory, so no job pays for loading them. A warm worker forks many jobs, so
        # it moves them where a fork copies no page tables for them (runner/weight_image.py).
        loaded += [f"{MODEL_PREFIX}{name}" for name in zoo.warm(None if warm else models)]
        if warm:
            from runner.weight_image import WeightImage  # noqa: PLC0415 (imports torch)

            _weights = WeightImage(zoo.loaded_models())
    os.environ.clear()
    os.environ.update(environment)
    torch = sys.modules.get("torch")
    # A CUDA context does not survive fork: if an import initialised it, every job would break.
    if torch is not None and torch.cuda.is_initialized():
        raise RuntimeError("CUDA was initialised while preloading; jobs could not use the GPU")
    return ["judge.run.child", *loaded]


def _run_one(
    sock: socket.socket, fds: list[int], limits: JobLimits, uid: int, gid: int, flt: Any
) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            sock.close()
            _keeper(fds, limits, uid, gid, flt)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(70)
    _close_all(fds)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _place_fds(fds: list[int]) -> None:
    """Put the job's descriptors at 0..5, its cgroup task files from 6 on, and close
    everything else the worker had open."""
    # First move every descriptor above the target slots, so no dup2 overwrites a source.
    ctl, request, result, out, err, *cgroup = (_dup_above(fd, 64) for fd in fds)
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out, 1), (err, 2), (request, 3), (result, 4), (ctl, 5)):
        os.dup2(source, target)
    for i, source in enumerate(cgroup):
        os.dup2(source, _CGROUP_FD + i)
    os.closerange(_CGROUP_FD + len(cgroup), os.sysconf("SC_OPEN_MAX"))


def _dup_above(fd: int, floor: int) -> int:
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, floor)
    os.close(fd)
    return new


def _keeper(fds: list[int], limits: JobLimits, uid: int, gid: int, flt: Any) -> None:
    _place_fds(fds)
    enter_job_namespaces(uid, gid)
    pid = os.fork()
    if pid == 0:
        _job_pid1(limits, flt)
    for fd in [*range(5), *_cgroup_fds(limits)]:
        os.close(fd)
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


def _cgroup_fds(limits: JobLimits) -> range:
    return range(_CGROUP_FD, _CGROUP_FD + limits.cgroup_files)


def _join_cgroups(limits: JobLimits) -> None:
    """Move this (single-threaded) process into the job's cgroups by writing "0" to their
    v1 task files, which the runner opened for it.

    The kernel lets a single thread that moves itself skip the global lock every other
    move takes, whose RCU grace period cost each job 7-14 ms. The runner checks the result
    and moves the job itself if this did not work."""
    for fd in _cgroup_fds(limits):
        with contextlib.suppress(OSError):
            os.write(fd, b"0")
        os.close(fd)


def _job_pid1(limits: JobLimits, flt: Any) -> None:
    code = 70
    try:
        _join_cgroups(limits)
        mount_job_filesystems(limits.tmpfs_mb)
        hide_devices(limits.hidden_devices)
        if _weights is not None:
            _weights.allow_private_writes()
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
        flt.load()
        _single_thread_torch()
        from judge.run.child import serve

        serve(3, 4)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        _flush_quietly()
        os._exit(code)


def _single_thread_torch() -> None:
    # One core per job: concurrent jobs on a small host must not fight over OpenMP threads.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _flush_quietly() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


if __name__ == "__main__":
    main()
