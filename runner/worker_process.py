"""The runner's handle on one sandboxed worker (a bubblewrap process running runner.worker)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import time
from typing import Any

from runner.identity import SandboxIdentity
from runner.layout import SandboxLayout

MESSAGE_BYTES = 1 << 16


class WorkerError(RuntimeError):
    """The worker failed to start or broke its protocol: the judge's fault, never the job's."""


class WorkerProcess:
    """Start a worker sandbox and talk to it over a SOCK_SEQPACKET socket pair."""

    def __init__(
        self,
        layout: SandboxLayout,
        identity: SandboxIdentity,
        preload: tuple[str, ...],
        warm: bool,
        tmp_mb: int = 16,
        start_timeout: float = 60.0,
    ) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = layout.bwrap_argv(
            [
                str(theirs.fileno()),
                str(identity.uid),
                str(identity.gid),
                "warm" if warm else "cold",
                *preload,
            ],
            tmp_mb,
        )
        switch: dict[str, Any] = {}
        if identity.switched:
            switch = {"user": identity.uid, "group": identity.gid, "extra_groups": []}
        started = time.monotonic()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
            env={"PATH": "/usr/bin:/bin"},
            **switch,
        )
        theirs.close()
        self.sock = ours
        self.jobs_run = 0
        try:
            ready = self.receive(start_timeout)
        except WorkerError:
            self.close()
            raise
        if not ready.get("ready"):
            self.close()
            raise WorkerError(f"worker sent {ready!r} instead of ready")
        self.preloaded = tuple(ready.get("preloaded", ()))
        # Bytes of its anonymous memory in huge pages once the worker readied its heap for
        # forks (runner/fork_heap.py).
        huge = ready.get("huge_page_bytes", 0)
        self.huge_page_bytes = huge if type(huge) is int else 0
        self.start_seconds = time.monotonic() - started

    def receive(self, timeout: float) -> dict[str, Any]:
        """One JSON message from the worker, or WorkerError on timeout, EOF or garbage."""
        try:
            readable, _, _ = select.select([self.sock], [], [], timeout)
            data = self.sock.recv(MESSAGE_BYTES) if readable else None
        except (OSError, ValueError) as exc:  # closed under us (a retired worker)
            raise WorkerError(f"worker socket unusable: {exc}") from exc
        if data is None:
            raise WorkerError(f"worker silent for {timeout:.1f}s")
        if not data:
            code = self.process.poll()
            raise WorkerError(f"worker exited (status {code}) before answering")
        try:
            message = json.loads(data)
        except ValueError as exc:
            raise WorkerError(f"worker sent invalid JSON: {exc}") from exc
        if not isinstance(message, dict):
            raise WorkerError(f"worker sent {type(message).__name__}, expected an object")
        return message

    def send_job(self, limits: dict[str, Any], fds: list[int]) -> None:
        socket.send_fds(self.sock, [json.dumps(limits).encode()], fds)
        self.jobs_run += 1

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL bubblewrap; its pid-1 then dies and the kernel empties the whole sandbox.

        The socket is shut down, not closed: another thread may be waiting on it (a job's
        cleanup asking whether the worker is done), and must see end-of-file, never a closed
        or reused descriptor. close() closes it, once its owner is done with the worker."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Kill, then release the socket: for the worker's owner (the pool), no one else."""
        self.kill()
        self.sock.close()

    def retire(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit (close its socket); kill it if it does not."""
        self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)
        self.close()
