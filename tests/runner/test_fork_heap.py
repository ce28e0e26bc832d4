"""A forking worker's heap made cheap to fork (runner/fork_heap.py): its objects frozen,
malloc's free pages given back, the rest gathered into huge pages."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from runner.fork_heap import _anonymous_ranges, _huge_bytes, collapse_heap
from runner.launchers.sandbox import SandboxLauncher

REPO = Path(__file__).resolve().parents[2]
MIB = 1 << 20

_MAPS = """\
00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/python3
00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/python3
01000000-05300000 rw-p 00000000 00:00 0 [heap]
7f0000100000-7f0000700000 rw-p 00000000 00:00 0
7f0000800000-7f0000900000 rw-p 00000000 00:00 0
7f0001000000-7f0001400000 r--p 00000000 00:00 0
7f0002000000-7f0002400000 ---p 00000000 00:00 0
7f0003000000-7f0003400000 rw-s 00000000 00:05 991 /memfd:weights (deleted)
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0 [stack]
"""


def test_only_writable_anonymous_memory_and_the_heap_are_chosen_aligned_inward(
    tmp_path: Path,
) -> None:
    maps = tmp_path / "maps"
    maps.write_text(_MAPS, encoding="ascii")
    assert _anonymous_ranges(str(maps)) == [
        (0x1000000, 0x5200000),  # the heap, its last partial 2 MiB left out
        (0x7F0000200000, 0x7F0000600000),  # both ends rounded inward
        # a 1 MiB mapping holds no whole huge page; read-only, inaccessible, file-backed
        # and stack mappings are never touched
    ]


def test_collapsing_keeps_every_byte_and_backs_the_memory_with_huge_pages() -> None:
    """In a process of its own: a 64 MiB buffer written with a pattern reads the same after
    the collapse, and the kernel now counts huge pages for this process."""
    code = textwrap.dedent(
        """
        import sys
        from runner.fork_heap import collapse_heap
        data = bytearray(64 << 20)
        for i in range(0, len(data), 4096):
            data[i] = i // 4096 % 251
        pattern = bytes(data[::4096])
        collapsed = collapse_heap()
        assert bytes(data[::4096]) == pattern, "a collapse changed the memory"
        rollup = open("/proc/self/smaps_rollup").read()
        huge_kb = int(rollup.split("AnonHugePages:")[1].split()[0])
        print(collapsed, huge_kb << 10)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    collapsed, huge = (int(x) for x in done.stdout.split())
    if collapsed == 0:
        pytest.skip("this kernel collapses no memory (MADV_COLLAPSE needs Linux 6.1)")
    assert collapsed >= 32 * MIB
    assert huge >= 32 * MIB


def test_a_process_whose_maps_cannot_be_read_collapses_nothing_and_starts_anyway(
    tmp_path: Path,
) -> None:
    """No /proc in reach, or a line that is not a mapping: the worker forks as before."""
    assert collapse_heap(str(tmp_path / "absent")) == 0
    garbled = tmp_path / "maps"
    garbled.write_text("zz-yy rw-p 00000000 00:00 0\n", encoding="ascii")
    assert collapse_heap(str(garbled)) == 0


def test_the_count_of_huge_pages_is_the_kernels_and_nothing_where_it_cannot_be_read(
    tmp_path: Path,
) -> None:
    """What the worker reports is AnonHugePages as smaps_rollup says, not the calls'
    results (a call can fail after collapsing most of its range)."""
    maps = tmp_path / "maps"
    maps.write_text("", encoding="ascii")  # no range: nothing attempted, nothing read
    rollup = tmp_path / "rollup"
    rollup.write_text("Rss: 10 kB\nAnonHugePages:    4096 kB\n", encoding="ascii")
    assert collapse_heap(str(maps), str(rollup)) == 0
    assert _huge_bytes(str(rollup)) == 4 * MIB
    assert _huge_bytes(str(tmp_path / "absent")) == 0
    rollup.write_text("AnonHugePages: many kB\n", encoding="ascii")
    assert _huge_bytes(str(rollup)) == 0


def test_preparing_for_forks_freezes_the_objects_and_gives_malloc_free_pages_back() -> None:
    """In a process of its own: 64 MiB of small freed objects stay resident in malloc's heap
    until the preparation gives them back; the collector's objects are frozen after it."""
    code = textwrap.dedent(
        """
        import gc
        from runner.fork_heap import prepare_for_forks
        def anonymous_kb():
            rollup = open("/proc/self/smaps_rollup").read()
            return int(rollup.split("Anonymous:")[1].split()[0])
        keep = [bytes(100) for _ in range(1000)]
        chunks = [bytearray(100_000) for _ in range(640)]  # below the mmap threshold
        for c in chunks:
            c[::4096] = b"x" * len(c[::4096])
        tail = bytearray(10)  # allocated last: the heap's top stays in use
        del chunks
        before = anonymous_kb()
        prepare_for_forks()
        print(before - anonymous_kb(), gc.get_freeze_count())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    released_kb, frozen = (int(x) for x in done.stdout.split())
    assert frozen > 1000
    assert released_kb >= 32 * 1024, "malloc kept the freed pages resident"


@pytest.mark.timeout(300)
def test_a_warm_torch_worker_forks_its_jobs_from_huge_pages_and_a_cold_one_does_not(
    warm_launcher: SandboxLauncher,
) -> None:
    """The warm worker says how much of its heap it collapsed and its jobs still run (AC);
    a cold worker, which forks once, spends nothing on it."""
    if not _kernel_collapses():
        pytest.skip("this kernel collapses no memory (MADV_COLLAPSE needs Linux 6.1)")
    problem = ProblemSet().get("attention-decode")
    report = judge_source(problem, problem.reference_source(), launcher=warm_launcher)
    assert report.verdict.value == "AC", report.to_dict(admin=True)
    torch_workers = [w for w in warm_launcher.workers() if "torch" in w.preloaded]
    assert torch_workers
    assert all(w.huge_page_bytes >= 64 * MIB for w in torch_workers)
    cold = SandboxLauncher(pool_size=0)
    try:
        handle = cold.launch(problem, problem.limits)
        try:
            assert handle.job.worker.huge_page_bytes == 0
        finally:
            handle.cleanup()
    finally:
        cold.close()


def _kernel_collapses() -> bool:
    code = "from runner.fork_heap import collapse_heap; b = bytearray(16 << 20); print(collapse_heap())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    return done.returncode == 0 and int(done.stdout) > 0
