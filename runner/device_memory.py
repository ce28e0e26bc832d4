"""The device-memory bound of a GPU job, enforced from outside the job.

A cgroup does not count device memory and an rlimit cannot either; anything set inside
the job (torch's per-process memory fraction, an environment variable) the job can undo.
So while a CUDA job runs, a thread of the trusted parent reads through the driver
(runner/nvml.py) how much device memory the job's processes hold, the host pids of its
pid namespace, and kills the job once that is over the limit. The job's exit then says
why (ExitInfo.device_memory), and the case becomes MLE.

Covered: memory held for longer than one poll (POLL_S), by any process of the job.
Not covered: a burst shorter than a poll (the device's own out-of-memory error still
ends it, as RE); a runner whose pid namespace is not the driver's (a container without
the host's pids): the driver's pids then name no process of the job, and nothing is
enforced (docs/RUNNER.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from judge.grading.outcome import DeviceMemoryOverrun
from runner.nvml import DeviceMemoryReader, NvmlError, NvmlMissing

POLL_S = 0.02  # one NVML query costs well under a millisecond
# Added to a problem's limit: the device memory CUDA itself takes in every process that
# uses it (its context, cuBLAS's workspace), which NVML counts as the process's own; about
# 500-600 MiB on recent GPUs with CUDA 12. Without it a problem whose memory_mb is 512 (the
# job's own data) would be over before its first tensor.
CUDA_CONTEXT_MB = 1024


@dataclass(frozen=True, slots=True)
class DeviceMemoryLimit:
    """What a GPU job's watcher needs from the launcher: the driver's reader, the limit."""

    reader: DeviceMemoryReader
    limit_mb: int


class WatchState(str, Enum):
    WATCHING = "watching"
    STOPPED = "stopped"  # the job ended under its limit
    EXCEEDED = "exceeded"  # the job held more than its limit and was killed
    UNREADABLE = "unreadable"  # the driver stopped answering; nothing enforced from then on


class DeviceMemoryWatcher:
    """Polls the device memory of `members()` (host pids) and calls `kill()` once their sum
    is over `limit_mb`. `check()` is one poll; `start()` runs polls on a daemon thread."""

    def __init__(
        self,
        reader: DeviceMemoryReader,
        limit_mb: int,
        members: Callable[[], Iterable[int]],
        kill: Callable[[], None],
        poll_s: float = POLL_S,
    ) -> None:
        self.reader = reader
        self.limit_mb = limit_mb
        self._members = members
        self._kill = kill
        self._poll_s = poll_s
        self.state = WatchState.WATCHING
        self.overrun: DeviceMemoryOverrun | None = None
        self.error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> WatchState:
        """One poll: read, compare, kill if over. Returns the state after it."""
        if self.state is not WatchState.WATCHING:
            return self.state
        try:
            used = self.reader.used_bytes_by_pid()
        except (NvmlError, OSError) as exc:
            self.error = str(exc)
            self.state = WatchState.UNREADABLE
            return self.state
        if sum(used.values()) >> 20 <= self.limit_mb:
            return self.state  # under the limit even if all of it were the job's: no /proc walk
        pids = set(self._members())
        used_mb = sum(n for pid, n in used.items() if pid in pids) >> 20
        if used_mb > self.limit_mb:
            # Recorded before the kill, so the exit the kill causes is read with its reason.
            self.overrun = DeviceMemoryOverrun(used_mb=used_mb, limit_mb=self.limit_mb)
            self.state = WatchState.EXCEEDED
            self._kill()
        return self.state

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="device-memory", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._poll_s):
            if self.check() is not WatchState.WATCHING:
                return

    def stop(self) -> None:
        """Stop polling (the job is over); idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if self.state is WatchState.WATCHING:
            self.state = WatchState.STOPPED


def watch_status(reader: DeviceMemoryReader | NvmlMissing) -> str:
    """How a GPU job's device memory is bounded here, in one line (doctor, GPU check)."""
    if isinstance(reader, NvmlMissing):
        return f"not watched: {reader.reason}"
    return "watched through NVML: a GPU job over its limit is killed (MLE)"
