"""A forking worker's heap, gathered into huge pages before its first fork.

Why: every job is a fork of a warm worker (two, with the keeper: runner/worker.py), and fork
copies the page-table entries of each written private page, one per 4 KiB; the job's exit
then tears its copies down again. Importing torch leaves about 200 MB of such memory (the
C++ operator tables in the malloc heap, Python's objects in anonymous mappings): some 50,000
entries per fork. Backed by 2 MiB pages, a fork copies one entry per 2 MiB instead. On a
2-core Xeon that took about a fifth of a warm torch job's CPU time, 9-12 ms of 46-51 ms
(docs/BENCHMARKS.md, issue 39's section).

MADV_COLLAPSE (Linux 6.1) makes the kernel copy the populated pages of a range into huge
pages now, whatever the system's transparent-huge-page setting; it leaves the range's later
faults as they were. A kernel without it, or a range it cannot collapse, keeps its small
pages: the worker is as it was, only slower to fork. What a job writes to such a page is
still its own copy: the kernel splits the job's mapping of the huge page and copies the one
4 KiB page written, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

_HUGE = 1 << 21  # x86-64's and arm64's (4 KiB granule) PMD-sized page
_MADV_COLLAPSE = 25


def collapse_heap(maps_path: str = "/proc/self/maps") -> int:
    """Collapse this process's writable anonymous memory (the malloc heap and anonymous
    mappings) into huge pages where the kernel can; the bytes it collapsed (0: none)."""
    madvise = _madvise()
    if madvise is None:
        return 0
    try:
        ranges = _anonymous_ranges(maps_path)
    except (OSError, ValueError):  # no /proc, or a line it cannot read: fork as before
        return 0
    collapsed = 0
    for start, end in ranges:
        if madvise(start, end - start, _MADV_COLLAPSE) == 0:
            collapsed += end - start
    return collapsed


def _madvise() -> Callable[[int, int, int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        madvise = libc.madvise
    except (OSError, AttributeError):
        return None
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise  # a ctypes function with the C signature set just above


def _anonymous_ranges(maps_path: str) -> list[tuple[int, int]]:
    """The huge-page-aligned inner part of every writable anonymous mapping (and the heap),
    read before any is changed: collapsing may split or merge the kernel's mappings."""
    ranges = []
    with open(maps_path, encoding="ascii") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 5 or "w" not in fields[1]:
                continue
            name = fields[5] if len(fields) > 5 else ""
            if name not in ("", "[heap]"):
                continue  # files, stacks, the vdso: not the heap's
            low, _, high = fields[0].partition("-")
            start = (int(low, 16) + _HUGE - 1) & ~(_HUGE - 1)
            end = int(high, 16) & ~(_HUGE - 1)
            if end > start:
                ranges.append((start, end))
    return ranges
