"""CPU seconds a child has used, read from outside it (the kernel's count, not the child's).

A submission can patch every clock inside its own process; it cannot change what the
kernel reports about it in /proc or in its cgroup. Linux only: elsewhere these give None
and the judge says the CPU-time rule is not enforced.
"""

from __future__ import annotations

import os

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu_seconds(pid: int) -> float | None:
    """User + system time of `pid` (all its threads) and of the children it has reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:  # fields 14-17 of proc(5): utime stime cutime cstime; [0] here is field 3
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    except (IndexError, ValueError):
        return None
    return ticks / _TICKS


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
