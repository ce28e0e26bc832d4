"""A warm worker: runs inside bubblewrap, imports the heavy modules once, forks one job at a time.

No submitted code ever runs in this process. For each job it receives five file
descriptors from the runner (the job's control socket, the request and result pipe
ends, stdout and stderr) and hands them to the job's processes, which it started before
the job came (runner/standby.py): a keeper in the job's new namespaces and, below it, the
job's pid 1. The job's pid 1 says hello on the control socket before it runs anything
untrusted; the runner learns its host pid from the socket credentials, puts it in the
job's cgroup and answers "go". The job then closes the control socket, so the submission
holds nothing but its own pipes.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import TYPE_CHECKING

from runner.fork_heap import prepare_for_forks
from runner.jobspace import MAX_CGROUP_FILES, JobLimits, make_undumpable, single_thread_torch
from runner.seccomp_policy import build_filter
from runner.standby import JOB_FDS, MESSAGE_BYTES, Standby, Walls
from runner.torch_library import MODEL_PREFIX

if TYPE_CHECKING:
    from runner.weight_image import WeightImage as _WeightImage


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
    walls = Walls(uid, gid, build_filter(), _weights)
    standby = Standby.start(walls)  # the first job's processes, before the runner is told
    sock = socket.socket(fileno=sock_fd)
    sock.send(json.dumps({"ready": True, "preloaded": loaded, "huge_page_bytes": huge}).encode())
    # Its processes would read end of file and exit with the worker anyway; this is quicker.
    left = _serve(sock, standby, walls, warm)
    if left is not None:
        left.discard()


def _serve(
    sock: socket.socket, standby: Standby | None, walls: Walls, warm: bool
) -> Standby | None:
    """Jobs one at a time until the runner closes the socket, each in processes started
    before it came (a cold worker, retired after its one job, starts no more). Returns the
    standby left unused."""
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(
                sock, MESSAGE_BYTES, JOB_FDS + MAX_CGROUP_FILES
            )
        except ConnectionError:
            return standby  # the runner is gone or is killing this sandbox
        if not data:
            return standby  # the runner closed the socket: retire
        limits = JobLimits.from_json(json.loads(data))
        if len(fds) != JOB_FDS + limits.cgroup_files:
            for fd in fds:
                os.close(fd)
            error = f"expected {JOB_FDS + limits.cgroup_files} fds, got {len(fds)}"
            sock.send(json.dumps({"done": False, "error": error}).encode())
            continue
        # None after a cold worker's one job; dead if killed while it stood by (by hand, or
        # by the OOM killer).
        if standby is None or not standby.alive():
            if standby is not None:
                standby.discard()
            standby = Standby.start(walls)
        status = standby.run(data, fds)
        sock.send(json.dumps({"done": True, "keeper_status": status}).encode())
        # Started as soon as the runner has the job's end: its own work before the next job
        # (the verdict, the next job's cgroup and pipes) overlaps these two forks. Forked
        # while the job ran instead, they competed with the runner's parent and the other
        # worker's job (docs/BENCHMARKS.md).
        standby = Standby.start(walls) if warm else None


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
    single_thread_torch()
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


if __name__ == "__main__":
    main()
