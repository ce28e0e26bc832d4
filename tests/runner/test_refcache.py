"""The reference cache: once per (problem, version, seed), bounded, safe under threads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from judge.problem.device import Device
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
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


CALIBRATED_TOML = """\
slug = "work"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "计算"
en = "Work"

[limits]
time_per_case_s = 30.0
total_time_s = 60.0
memory_mb = 128
cpu_vs_reference = 2.0
cpu_slack_s = 0.05

[submission]
names = ["total"]

[checker]
kind = "value"
"""
# One public calibrated case, and one hidden whose shape is the same on every seed.
CALIBRATED_CASES = """\
def public_cases():
    return [{"name": "long", "args": [3000, 0], "calibrated": True}]


def generated_cases(rng):
    return [{"name": "long-0", "args": [3000, rng.randrange(100)], "calibrated": True}]


def run(sub, args):
    return sub.total(*args)
"""
CALIBRATED_REFERENCE = "def total(n, k):\n    return sum(range(n)) + k\n"


class _CountingLauncher:
    """The local launcher, counting the jobs it starts (each calibration is one)."""

    name = "local"

    def __init__(self, workdir: Path) -> None:
        from judge.run.launch import LocalLauncher

        self.inner = LocalLauncher(workdir)
        self.cpu_accounting = self.inner.cpu_accounting
        self.launched = 0

    def device_for(self, problem):  # type: ignore[no-untyped-def]
        return self.inner.device_for(problem)

    def launch(self, problem, limits, device=Device.CPU):  # type: ignore[no-untyped-def]
        self.launched += 1
        return self.inner.launch(problem, limits, device)


def test_calibration_runs_once_per_case_name_whatever_the_seed(
    make_problem, tmp_path: Path
) -> None:
    """Issue 20: every submission now has a seed of its own; a calibrated case costs the same
    on every seed, so measuring the reference again for each one would only add latency."""
    folder = make_problem(
        files={"cases.py": CALIBRATED_CASES, "reference.py": CALIBRATED_REFERENCE},
        slug="work",
        toml=CALIBRATED_TOML,
    )
    problem = ProblemSet(folder.parent).get("work")
    cache = ReferenceCache()
    launcher = _CountingLauncher(tmp_path)
    first = cache.cpu(problem, 1, launcher)
    # A generated case's name says the kind of seed that drew it (issue 23): every secret
    # seed draws the same calibrated "hidden-long-0".
    assert first is not None and set(first) == {"long", "hidden-long-0"}
    assert launcher.launched == 1
    for seed in (2, 3, 4):
        again = cache.cpu(problem, seed, launcher)
        assert again is not None and set(again) == {"long", "hidden-long-0"}
    assert launcher.launched == 1  # no seed brought a name not measured before
