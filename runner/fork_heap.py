"""A forking worker's heap made cheap to fork, once, before its first fork.

Every job is a fork of a warm worker (two, with the keeper: runner/standby.py), and after
`import torch` a worker holds some 200 MB of private written memory: the C++ operator tables
in the malloc heap, Python's objects in anonymous mappings. Three things make what a job
inherits of it cheaper, each measured on a 2-core Xeon (docs/BENCHMARKS.md, issue 39):

1. Python's collector freezes the worker's objects (`gc.freeze`): a collection in the job
   then never walks them, and walking one writes to its header, so the job would copy the
   4 KiB page it sits on. The full collection before it takes about 50 ms, once per warm
   worker, beside the 1-2 s of its `import torch`.
2. malloc gives its free pages back (`malloc_trim`): freed chunks inside the heap were still
   resident and shared with every job, so a job's new tensor that landed there copied the
   worker's garbage page by page (a write-protect fault and a 4 KiB copy each) instead of
   taking a fresh zeroed page. Those copies were half of all copy faults in a burst of
   attention-decode jobs, and the trim took about 5% off a submission's CPU time.
3. The heap is gathered into 2 MiB pages (`MADV_COLLAPSE`, Linux 6.1): fork copies one
   page-table entry per written private page, and the job's exit tears them down again;
   backed by 2 MiB pages, a fork copies one entry per 2 MiB instead of 512. That was about a
   fifth of a warm torch job's CPU time, 9-12 ms of 46-51 ms.

MADV_COLLAPSE makes the kernel copy the populated pages of a range into huge pages now,
whatever the system's transparent-huge-page setting; it leaves the range's later faults as
they were. A kernel without it, or a range it cannot collapse, keeps its small pages: the
worker is as it was, only slower to fork. What a job writes to such a page is still its own
copy: the kernel splits the job's mapping of the huge page and copies the one 4 KiB page
written, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

_HUGE = 1 << 21  # x86-64's and arm64's (4 KiB granule) PMD-sized page
_MADV_COLLAPSE = 25


def prepare_for_forks(
    maps_path: str = "/proc/self/maps", rollup_path: str = "/proc/self/smaps_rollup"
) -> int:
    """Freeze the collector's objects, give malloc's free pages back, then collapse the heap
    into huge pages; the bytes of anonymous memory in huge pages afterwards (0: none)."""
    gc.collect()  # what is garbage now would otherwise be frozen with the rest
    gc.freeze()
    _trim_malloc()
    return collapse_heap(maps_path, rollup_path)


def collapse_heap(
    maps_path: str = "/proc/self/maps", rollup_path: str = "/proc/self/smaps_rollup"
) -> int:
    """Collapse this process's writable anonymous memory (the malloc heap and anonymous
    mappings) into huge pages where the kernel can; the bytes of anonymous memory in huge
    pages afterwards, as the kernel counts them (0: none, or no way to tell)."""
    libc = _libc()
    if libc is None:
        return 0
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    try:
        ranges = _anonymous_ranges(maps_path)
    except (OSError, ValueError):  # no /proc, or a line it cannot read: fork as before
        return 0
    for start, end in ranges:
        madvise(start, end - start, _MADV_COLLAPSE)
    # Not the calls' results: one that fails can still have collapsed the rest of its range
    # (a 2 MiB stretch with no page at all, which malloc gave back, fails the call after the
    # rest collapsed). The kernel's own count says what came of them.
    return _huge_bytes(rollup_path) if ranges else 0


def _trim_malloc() -> None:
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None)  # glibc's; another C library may lack it
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
        trim(0)


def _huge_bytes(rollup_path: str) -> int:
    """AnonHugePages of smaps_rollup, in bytes; 0 where it cannot be read."""
    try:
        with open(rollup_path, encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("AnonHugePages:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.madvise  # noqa: B018 (a C library without madvise is no use here)
    except (OSError, AttributeError):
        return None
    return libc


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
