"""The runner's side of the trusted worker (runner/trusted_worker.py): starting it, asking it
for a child, and the handle on each child it forks.

A ForkedChild behaves as judge.run.launch.LocalProcess does (a plain child in a session of
its own, killed as a group, its CPU time walked in /proc), except that it is not the
runner's own child: the trusted worker reaps it and says how it ended on the child's status
socket, and holds it unreaped until the runner closes that socket in cleanup(), so a kill
can never reach a process that took over its pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from judge.grading.outcome import ExitInfo
from judge.run.cpu_clock import read_stat, session_cpu_seconds
from judge.run.launch import ROOT, child_environment

MESSAGE_BYTES = 1 << 16
# Importing torch and every part of mini_llm, then reading the checkpoints: 3 s idle on a
# 2-core box, many times that beside a loaded suite.
START_TIMEOUT_S = 180.0
# The fork and its pid: milliseconds, unless the worker has hung or gone.
PID_TIMEOUT_S = 30.0
# After a SIGKILL the kernel ends the child at once; a worker that then says nothing is gone.
KILLED_TIMEOUT_S = 30.0


class TrustedWorkerError(RuntimeError):
    """The trusted worker failed to start, went away or broke its protocol: the judge's
    fault, never the submission's."""


class TrustedWorkerProcess:
    """One trusted worker: a plain `python -I` child of the runner, in a session of its own,
    with the children's environment (judge.run.launch.child_environment). Thread-safe: each
    fork() gets its own status socket, so only the request is sent under a lock."""

    def __init__(self, start_timeout: float = START_TIMEOUT_S) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        boot = (
            f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from runner.trusted_worker import main; main({theirs.fileno()})"
        )
        started = time.monotonic()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", boot],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                cwd="/",
                env=child_environment(),
                start_new_session=True,  # the runner's Ctrl-C is the runner's to handle
            )
        finally:
            theirs.close()
        self._sock = ours
        self._lock = threading.Lock()
        try:
            ready = _receive(self._sock, start_timeout, "the trusted worker")
        except TrustedWorkerError:
            self.close()
            raise
        if not ready.get("ready"):
            self.close()
            raise TrustedWorkerError(f"the trusted worker sent {ready!r} instead of ready")
        self.preloaded = tuple(ready.get("preloaded", ()))
        self.start_seconds = time.monotonic() - started

    def alive(self) -> bool:
        return self.process.poll() is None

    def fork(self, config: str, workdir: Path) -> ForkedChild:
        """A child running judge.run.child_main with `config` in `workdir`."""
        status_ours, status_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        req_r, request_fd = os.pipe()
        result_fd, res_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        theirs = [status_theirs.fileno(), req_r, res_w, out_w, err_w]
        ours = [request_fd, result_fd, out_r, err_r]
        try:
            message = json.dumps({"config": config, "workdir": str(workdir)}).encode()
            try:
                with self._lock:
                    socket.send_fds(self._sock, [message], theirs)
            except OSError as exc:
                raise TrustedWorkerError(f"the trusted worker is gone: {exc}") from exc
        except BaseException:
            status_ours.close()
            for fd in ours:
                os.close(fd)
            raise
        finally:
            status_theirs.close()
            for fd in theirs[1:]:
                os.close(fd)
        try:
            said = _receive(status_ours, PID_TIMEOUT_S, "the trusted worker")
            pid = said.get("pid")
            if not isinstance(pid, int) or pid <= 0:
                raise TrustedWorkerError(f"the trusted worker sent {said!r} instead of a pid")
        except BaseException:
            status_ours.close()
            for fd in ours:
                os.close(fd)
            raise
        return ForkedChild(pid, status_ours, request_fd, result_fd, out_r, err_r)

    def close(self) -> None:
        """End the worker (its children are ended by their own cleanup, or by it as it goes)."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._sock.close()


class ForkedChild:
    """ChildHandle of one child of the trusted worker (see the module's docstring)."""

    def __init__(
        self,
        pid: int,
        status: socket.socket,
        request_fd: int,
        result_fd: int,
        stdout_fd: int,
        stderr_fd: int,
    ) -> None:
        self.pid = pid
        self._status = status
        self._exit: ExitInfo | None = None
        # Once closed, or once the worker has gone (its orphan may be reaped by init at any
        # time), the pid is no longer held for us: nothing is signalled any more.
        self._closed = self._unheld = False
        self.request_fd, self.result_fd = request_fd, result_fd
        self.stdout_fd, self.stderr_fd = stdout_fd, stderr_fd

    def kill(self) -> None:
        if not (self._closed or self._unheld):
            _kill_group(self.pid)

    def wait(self, timeout: float) -> ExitInfo:
        if self._exit is None:
            self._exit = self._exit_within(timeout)
        if self._exit is None:
            self.kill()
            self._exit = self._exit_within(KILLED_TIMEOUT_S) or _gone()
        return self._exit

    def _exit_within(self, timeout: float) -> ExitInfo | None:
        """The child's exit as the worker reports it; None if it still runs after `timeout`."""
        try:
            said = _receive(self._status, timeout, "the trusted worker")
        except _Silent:
            return None
        except TrustedWorkerError:
            # The worker went away: its child is an orphan now, ended here if it is still ours.
            stat = read_stat(self.pid)
            if stat is not None and stat.session == self.pid:
                _kill_group(self.pid)
            self._unheld = True
            return _gone()
        report = said.get("exit")
        if not isinstance(report, dict):
            return _gone()
        code, sig = report.get("returncode"), report.get("signal")
        if isinstance(sig, int):
            return ExitInfo(None, sig, cpu_limit=sig == signal.SIGXCPU)
        return ExitInfo(code if isinstance(code, int) else None, None)

    def cpu_seconds(self) -> float | None:
        """The child's whole session, as LocalProcess counts it; the worker keeps the child
        a zombie until cleanup(), so its count is still there after it exits."""
        return session_cpu_seconds(self.pid)

    def pause(self) -> None:
        self._signal_group(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_group(signal.SIGCONT)

    def _signal_group(self, sig: signal.Signals) -> None:
        if self._closed or self._unheld:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def close_requests(self) -> None:
        if self.request_fd >= 0:
            os.close(self.request_fd)
            self.request_fd = -1

    def cleanup(self) -> None:
        if self._closed:
            return
        self.kill()
        self.wait(KILLED_TIMEOUT_S)
        self._closed = True
        self._status.close()  # the worker reaps the child now
        self.close_requests()
        for name in ("result_fd", "stdout_fd", "stderr_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)


class _Silent(TrustedWorkerError):
    """Nothing arrived within the time allowed."""


def _receive(sock: socket.socket, timeout: float, who: str) -> dict[str, Any]:
    try:
        readable, _, _ = select.select([sock], [], [], timeout)
        data = sock.recv(MESSAGE_BYTES) if readable else None
    except (OSError, ValueError) as exc:
        raise TrustedWorkerError(f"{who}'s socket is unusable: {exc}") from exc
    if data is None:
        raise _Silent(f"{who} said nothing for {timeout:.1f} s")
    if not data:
        raise TrustedWorkerError(f"{who} has gone")
    try:
        message = json.loads(data)
    except ValueError as exc:
        raise TrustedWorkerError(f"{who} sent invalid JSON: {exc}") from exc
    if not isinstance(message, dict):
        raise TrustedWorkerError(f"{who} sent {type(message).__name__}, expected an object")
    return message


def _gone() -> ExitInfo:
    """How a child whose end nobody reported is judged: killed (its run already has its
    observations, or lacks them and says so)."""
    return ExitInfo(None, signal.SIGKILL)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


__all__ = ["ForkedChild", "TrustedWorkerError", "TrustedWorkerProcess"]
