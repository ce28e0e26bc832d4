"""The seed stock: hidden seeds whose cases and reference answers are computed ahead, while
the judge is idle, each handed out once (runner/seedstock.py)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from judge.problem.spec import ProblemSpec
from runner.refcache import ReferenceCache
from runner.seedstock import IdleGate, SeedStock


def _until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the stock did not get there in time"
        time.sleep(0.01)


@pytest.fixture
def stock() -> Iterator[tuple[SeedStock, ReferenceCache, IdleGate]]:
    cache, gate = ReferenceCache(), IdleGate()
    seeds = itertools.count(1000)
    made = SeedStock(cache, gate, 1, draw=lambda: next(seeds))
    yield made, cache, gate
    made.close()


def test_a_problem_is_stocked_after_its_first_submission_and_each_seed_served_once(
    stock: tuple[SeedStock, ReferenceCache, IdleGate], add_problem: ProblemSpec
) -> None:
    seeds, cache, _ = stock
    assert seeds.take(add_problem) is None  # nothing ready yet: the first learner pays
    _until(lambda: seeds.ready(add_problem) == 1)
    first = seeds.take(add_problem)
    assert first == 1000
    # Its entry is in the cache: judging with it computes nothing.
    misses = cache.misses
    assert cache.expected(add_problem, first)["small"] == 3
    assert cache.misses == misses and cache.hits == 1
    _until(lambda: seeds.ready(add_problem) == 1)  # refilled after it was served
    assert seeds.take(add_problem) == 1001
    assert seeds.served == 2


def test_nothing_is_computed_while_the_judge_is_busy(
    stock: tuple[SeedStock, ReferenceCache, IdleGate], add_problem: ProblemSpec
) -> None:
    seeds, _, gate = stock
    release = threading.Event()
    judging = threading.Thread(target=lambda: _hold(gate, release))
    judging.start()
    try:
        _until(lambda: gate._jobs == 1)
        assert seeds.take(add_problem) is None
        time.sleep(0.5)
        assert seeds.ready(add_problem) == 0  # waits for the judging to end
    finally:
        release.set()
        judging.join()
    _until(lambda: seeds.ready(add_problem) == 1)


def _hold(gate: IdleGate, release: threading.Event) -> None:
    with gate.busy():
        release.wait(30)


def test_a_depth_of_zero_stocks_nothing(add_problem: ProblemSpec) -> None:
    seeds = SeedStock(ReferenceCache(), IdleGate(), 0)
    assert seeds.take(add_problem) is None
    time.sleep(0.2)
    assert seeds.ready(add_problem) == 0
    seeds.close()


def test_closing_stops_a_stock_that_waits_for_idle(add_problem: ProblemSpec) -> None:
    gate = IdleGate()
    seeds = SeedStock(ReferenceCache(), gate, 1)
    release = threading.Event()
    judging = threading.Thread(target=lambda: _hold(gate, release))
    judging.start()
    try:
        _until(lambda: gate._jobs == 1)
        seeds.take(add_problem)
        started = time.monotonic()
        seeds.close()
        assert time.monotonic() - started < 5
    finally:
        release.set()
        judging.join()


def test_the_drawn_seeds_are_63_bit_and_unpredictable() -> None:
    from runner.seedstock import draw_seed

    drawn = {draw_seed() for _ in range(200)}
    assert len(drawn) == 200 and all(0 <= seed < 2**63 for seed in drawn)
