"""CPU seconds a child has used, read from outside it (the kernel's count, not the child's).

A submission can patch every clock inside its own process; it cannot change what the
kernel reports about it in /proc or in its cgroup. Linux only: elsewhere these give None
and the judge says the CPU-time rule is not enforced.
"""

from __future__ import annotations

import os

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class ProcStat:
    """The fields of /proc/<pid>/stat the CPU count needs."""

    __slots__ = ("cpu_s", "ppid", "session", "state")

    def __init__(self, state: str, ppid: int, session: int, cpu_s: float) -> None:
        self.state, self.ppid, self.session, self.cpu_s = state, ppid, session, cpu_s


def read_stat(pid: int | str) -> ProcStat | None:
    """None once the process is gone (or where there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:  # [0] here is field 3 of proc(5): state, ppid, pgrp, session, ... utime (14) ...
        # utime, stime, and cutime, cstime: the children it has reaped.
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
        return ProcStat(fields[0].decode(), int(fields[1]), int(fields[3]), ticks / _TICKS)
    except (IndexError, ValueError):
        return None


def session_cpu_seconds(session: int) -> float | None:
    """CPU time of every process in a session, zombies included (they keep their counts
    until reaped; a reaped one's count is in its reaper's). A child started in a session of
    its own is counted even when its helpers are never waited for; one that starts yet
    another session escapes this count (the sandbox's cgroup or pid namespace does not)."""
    if read_stat(session) is None:
        return None
    total = 0.0
    for entry in _pids():
        stat = read_stat(entry)
        if stat is not None and stat.session == session:
            total += stat.cpu_s
    return total


def _pids() -> list[str]:
    try:
        return [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []


def cgroup_cpu_seconds(cpu_stat: str) -> float | None:
    """usage_usec of a cgroup v2 cpu.stat file: every process the job ever ran, counted."""
    try:
        with open(cpu_stat, encoding="ascii") as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
    except (OSError, ValueError):
        return None
    return None


def cpuacct_seconds(usage: str) -> float | None:
    """A cgroup v1 cpuacct.usage file (nanoseconds)."""
    try:
        with open(usage, encoding="ascii") as f:
            return int(f.read().strip()) / 1e9
    except (OSError, ValueError):
        return None
