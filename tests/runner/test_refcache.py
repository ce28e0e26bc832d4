"""The reference cache: once per (problem, version, seed), bounded, safe under threads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from judge.problemset import ProblemSet
from judge.spec import ProblemSpec
from runner.refcache import ReferenceCache


def test_expected_values_are_computed_once_per_seed(add_problem: ProblemSpec) -> None:
    cache = ReferenceCache()
    first = cache.expected(add_problem, 7)
    again = cache.expected(add_problem, 7)
    other = cache.expected(add_problem, 8)
    assert first is again
    assert first != other  # another seed draws other generated cases
    assert (cache.hits, cache.misses) == (1, 2)
    assert first["small"] == 3 and first["negative"] == -2


def test_a_new_problem_version_is_a_new_key(add_problem: ProblemSpec, tmp_path: Path) -> None:
    cache = ReferenceCache()
    cache.expected(add_problem, 1)
    copy = tmp_path / "add"
    copy.mkdir()
    for f in add_problem.path.rglob("*"):
        if f.is_file():
            target = copy / f.relative_to(add_problem.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
    (copy / "reference.py").write_text("def add(a, b):\n    return a + b + 0\n")
    changed = ProblemSet(tmp_path).get("add")
    assert changed.version != add_problem.version
    cache.expected(changed, 1)
    assert cache.misses == 2


def test_least_recently_used_entries_are_evicted(add_problem: ProblemSpec) -> None:
    cache = ReferenceCache(max_entries=2)
    for seed in (1, 2, 1, 3):  # 1 is used again, so 2 is the oldest when 3 arrives
        cache.expected(add_problem, seed)
    assert len(cache) == 2
    cache.expected(add_problem, 1)
    assert cache.hits == 2  # the second 1, and this one


def test_concurrent_requests_compute_once(add_problem: ProblemSpec) -> None:
    cache = ReferenceCache()
    barrier = threading.Barrier(8)

    def ask() -> None:
        barrier.wait()
        cache.expected(add_problem, 99)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.misses == 1 and cache.hits == 7


def test_cache_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_entries must be >= 1"):
        ReferenceCache(max_entries=0)
