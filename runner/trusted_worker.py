"""The trusted worker: imports torch, mini_llm and the checkpoints once, then forks each
trusted child (a speed problem's paced reference, a capstone stage's driver) from itself.

Only the problem's own code runs in these children, never a submission, so there is no
sandbox here: a child is what runner/trusted_child.py started cold before, a plain process
in a session of its own that the runner moves into a cgroup made as a job's. What a cold
child paid on every run (1.2 s of importing torch, 1.4 s of reading checkpoints) is paid
once, here, before the first fork.

For each child the runner sends the child's config and working folder with five file
descriptors: a status socket (kept here, never passed on), the request read end, the
result write end, stdout and stderr. This process forks, says the child's pid on the
status socket, and later its exit status; it reaps the child only after the runner has
closed that socket, so until then the pid (and the process group it leads) cannot be
reused under the runner's kill. The process stays single-threaded: a fork copies only the
calling thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import selectors
import signal
import socket
import sys
import traceback
from typing import TYPE_CHECKING

from runner.fork_heap import prepare_for_forks
from runner.torch_library import JOB_LIBRARY, TORCH_PRELOAD

if TYPE_CHECKING:
    from runner.weight_image import WeightImage as _WeightImage

MESSAGE_BYTES = 1 << 16
CHILD_FDS = 5  # status socket, request read end, result write end, stdout, stderr
# What the children import: the child loop, the hosted-submission channel of a trusted
# driver and the job's device its cases read, torch, every part of mini_llm (trusted code
# withholds nothing), the checkpoints. Once each: a module of the job library may also be
# in the torch preload (those no problem withholds).
PRELOAD = tuple(
    dict.fromkeys(
        (
            "judge.run.child",
            "judge.run.remote",
            "judge.run.job_device",
            *TORCH_PRELOAD,
            *JOB_LIBRARY,
        )
    )
)


class _Child:
    """One forked child: its status socket, and whether it has exited and been released."""

    __slots__ = ("exited", "pid", "released", "status")

    def __init__(self, pid: int, status: socket.socket) -> None:
        self.pid, self.status = pid, status
        self.exited = self.released = False


def main(sock_fd: int) -> None:
    """Entry point: `sock_fd` is this worker's end of the runner's SOCK_SEQPACKET pair."""
    loaded = _preload()
    sock = socket.socket(fileno=sock_fd)
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd is written
    sock.send(json.dumps({"ready": True, "preloaded": loaded}).encode())
    children: dict[int, _Child] = {}  # by status socket fd
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ, "runner")
    selector.register(wake_r, selectors.EVENT_READ, "sigchld")
    try:
        while True:
            for key, _ in selector.select():
                if key.data == "runner":
                    if not _take_request(sock, selector, children):
                        return  # the runner closed its end: retire
                elif key.data == "sigchld":
                    with contextlib.suppress(OSError):
                        os.read(wake_r, 512)
                    _note_exits(selector, children)
                else:
                    _release(selector, children, key.data)
    finally:
        for child in children.values():
            if not child.exited:
                _kill_group(child.pid)


# The checkpoints, moved where a fork copies no page tables for them (runner/weight_image.py).
_weights: _WeightImage | None = None


def _preload() -> list[str]:
    global _weights  # set once, before the first fork
    for name in PRELOAD:
        __import__(name)
    torch = sys.modules["torch"]
    # Before any torch op runs here: a pool of OpenMP threads started in this process would
    # not be inherited by its forks (runner/worker.py says what that did to a job).
    torch.set_num_threads(1)
    zoo = sys.modules["mini_llm.zoo"]
    models = [f"model:{name}" for name in zoo.warm()]
    # Every child is a fork of this process: with the checkpoints in a weight image and the
    # heap made ready (runner/fork_heap.py), a fork and its exit cost 4 ms instead of 27
    # (2-core Xeon).
    from runner.weight_image import WeightImage  # noqa: PLC0415 (imports torch)

    _weights = WeightImage(zoo.loaded_models())
    prepare_for_forks()
    # A CUDA context does not survive fork: if an import initialised it, every child would break.
    if torch.cuda.is_initialized():
        raise RuntimeError("CUDA was initialised while preloading; children could not use it")
    return [*PRELOAD, *models]


def _take_request(
    sock: socket.socket,
    selector: selectors.BaseSelector,
    children: dict[int, _Child],
) -> bool:
    """Fork the child one request asks for; False once the runner has gone."""
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, MESSAGE_BYTES, CHILD_FDS)
    except ConnectionError:
        return False
    if not data:
        return False
    if len(fds) != CHILD_FDS:
        for fd in fds:
            os.close(fd)
        return True  # the runner waits on a status socket it never sent: its own timeout says so
    request = json.loads(data)
    status = socket.socket(fileno=fds[0])
    pid = os.fork()
    if pid == 0:
        _child(request, fds)
    for fd in fds[1:]:
        os.close(fd)
    child = _Child(pid, status)
    children[status.fileno()] = child
    selector.register(status, selectors.EVENT_READ, status.fileno())
    _send(child, {"pid": pid})
    _note_exits(selector, children)  # one that exited before its handler was set up
    return True


def _child(request: dict[str, str], fds: list[int]) -> None:
    """In the fork: the child's descriptors at 0-4 and nothing else of this process's (its
    socket, the other children's status sockets), its own session and folder, then the
    child loop, exactly as a cold child's `python -c` would have run it."""
    code = 70
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _place_fds(fds[1:])
        os.setsid()  # its own process group: the runner's kill reaches its helpers too
        os.chdir(request["workdir"])
        if _weights is not None:
            _weights.allow_private_writes()
        _fresh_randomness()
        from judge.run.child_main import main as child_main

        child_main(3, 4, request["config"])
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


def _fresh_randomness() -> None:
    """Seed what was imported from the system's entropy, as a new interpreter is seeded: a
    fork would otherwise hand every child the worker's one state, and trusted code that
    draws unseeded numbers would draw the same ones in every run."""
    random.seed()
    torch = sys.modules["torch"]
    torch.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def _place_fds(fds: list[int]) -> None:
    """Request at 3, result at 4, stdout and stderr at 1 and 2, /dev/null at 0; nothing else."""
    request, result, out, err = (fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in fds)
    for fd in fds:
        os.close(fd)
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out, 1), (err, 2), (request, 3), (result, 4)):
        os.dup2(source, target)
    os.closerange(5, os.sysconf("SC_OPEN_MAX"))


def _note_exits(selector: selectors.BaseSelector, children: dict[int, _Child]) -> None:
    """Tell the runner of every child that has exited; reap those it has released."""
    for child in list(children.values()):
        if child.exited:
            continue
        # WNOWAIT: the child stays a zombie, holding its pid, until the runner releases it.
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is None:
            continue
        child.exited = True
        if info.si_code == os.CLD_EXITED:
            _send(child, {"exit": {"returncode": info.si_status, "signal": None}})
        else:
            _send(child, {"exit": {"returncode": None, "signal": info.si_status}})
        if child.released:
            _reap(selector, children, child)


def _release(selector: selectors.BaseSelector, children: dict[int, _Child], fd: int) -> None:
    """The runner closed a child's status socket: it is done with the child."""
    child = children[fd]
    with contextlib.suppress(OSError):
        if child.status.recv(MESSAGE_BYTES):
            return  # the runner never writes here; ignore anything but the end
    child.released = True
    selector.unregister(child.status)
    if child.exited:
        _reap(selector, children, child)
    else:
        _kill_group(child.pid)  # reaped when its exit is noted


def _reap(selector: selectors.BaseSelector, children: dict[int, _Child], child: _Child) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(child.pid, 0)
    children.pop(child.status.fileno(), None)
    child.status.close()


def _send(child: _Child, message: dict[str, object]) -> None:
    with contextlib.suppress(OSError):  # the runner may have gone; its end says so
        child.status.send(json.dumps(message).encode())


def _kill_group(pid: int) -> None:
    """The child's group, and the child itself in case it has not yet made the group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
