"""A job's pid namespace, held open by the runner so that "the job is over" can be checked.

The runner opens /proc/<pid 1>/ns/pid at the handshake and keeps the descriptor until
the job is cleaned up. While it is open the kernel cannot reuse the namespace's inode
number, so comparing (st_dev, st_ino) of /proc/<pid>/ns/pid with it names exactly the
job's processes, never those of a later namespace that happens to get the same number.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time


class PidNamespace:
    """The job's pid namespace; `empty()` and `kill_all()` look it up in the host's /proc."""

    def __init__(self, host_pid: int) -> None:
        self.fd = os.open(f"/proc/{host_pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        info = os.fstat(self.fd)
        self.key = (info.st_dev, info.st_ino)

    def members(self) -> list[int]:
        """Host pids of the processes in this namespace right now."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                info = os.stat(f"/proc/{entry}/ns/pid")
            except OSError:  # exited meanwhile, or a zombie whose namespaces are gone
                continue
            if (info.st_dev, info.st_ino) == self.key:
                found.append(int(entry))
        return found

    def cpu_seconds(self) -> float | None:
        """CPU time of every process in the namespace, and of zombies whose parent is one
        (a zombie's namespace link is gone, but it keeps its counts until reaped, and a
        reaped one's count is in its reaper's). None once nothing is left."""
        from judge.run.cpu_clock import read_stat

        members = set(self.members())
        if not members:
            return None
        total = 0.0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            stat = read_stat(entry)
            if stat is None:
                continue
            if int(entry) in members or (stat.state == "Z" and stat.ppid in members):
                total += stat.cpu_s
        return total

    def wait_empty(self, timeout: float) -> bool:
        """SIGKILL whatever is left and wait until nothing is; False if it outlasted timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = self.members()
            if not left:
                return True
            if time.monotonic() > deadline:
                return False
            for pid in left:
                _signal_if_member(pid, self.key, signal.SIGKILL)
            time.sleep(0.01)

    def stop_all(self) -> None:
        """SIGSTOP every process in the namespace, again until a pass finds no new one (a
        fork that was under way when its parent stopped leaves a child the next pass sees)."""
        stopped: set[int] = set()
        for _ in range(50):
            fresh = set(self.members()) - stopped
            if not fresh:
                break
            for pid in fresh:
                _signal_if_member(pid, self.key, signal.SIGSTOP)
            stopped |= fresh
        # A signal is only queued when kill returns: wait until every thread has stopped.
        deadline = time.monotonic() + STOP_WAIT_S
        while not all(_all_threads_stopped(pid) for pid in stopped):
            if time.monotonic() > deadline:
                return
            time.sleep(0.001)

    def continue_all(self) -> None:
        """SIGCONT every process in the namespace (those stop_all() stopped)."""
        for pid in self.members():
            _signal_if_member(pid, self.key, signal.SIGCONT)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


STOP_WAIT_S = 1.0  # how long stop_all() waits for the threads it stopped to be stopped


def _all_threads_stopped(pid: int) -> bool:
    """Every thread of `pid` stopped (T), or the process gone."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
        if state not in (b"T", b"t", b"Z", b"X"):
            return False
    return True


def _signal_if_member(pid: int, key: tuple[int, int], sig: signal.Signals) -> None:
    """Send `sig` to `pid` through a pidfd, after checking it is still in the namespace (a
    pid reused by a process outside it is never signalled)."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        info = os.stat(f"/proc/{pid}/ns/pid")
        if (info.st_dev, info.st_ino) == key:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, sig)
    except OSError:
        pass
    finally:
        os.close(pidfd)
