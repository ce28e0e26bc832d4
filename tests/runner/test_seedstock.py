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
    cache, gate = ReferenceCache(), IdleGate(settle_s=0.05)
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
        _until(lambda: gate.jobs == 1)
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
    gate = IdleGate(settle_s=0.05)
    seeds = SeedStock(ReferenceCache(), gate, 1)
    release = threading.Event()
    judging = threading.Thread(target=lambda: _hold(gate, release))
    judging.start()
    try:
        _until(lambda: gate.jobs == 1)
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


def test_a_step_begins_only_after_the_judge_has_been_idle_for_a_moment() -> None:
    gate, stopping = IdleGate(settle_s=0.3), threading.Event()
    with gate.busy():
        pass
    started = time.monotonic()
    assert gate.begin_step(stopping)
    assert time.monotonic() - started >= 0.25  # the settle period after the last judging
    gate.end_step()


def test_a_timed_judging_waits_for_a_step_under_way_and_an_untimed_one_does_not() -> None:
    gate, stopping = IdleGate(settle_s=0.0), threading.Event()
    assert gate.begin_step(stopping)
    entered: list[str] = []

    def judge(kind: str, exclusive: bool) -> None:
        with gate.busy(exclusive=exclusive):
            entered.append(kind)

    timed = threading.Thread(target=judge, args=("timed", True))
    plain = threading.Thread(target=judge, args=("plain", False))
    timed.start()
    plain.start()
    plain.join(5)
    time.sleep(0.2)
    assert entered == ["plain"]  # the timed one still waits for the step
    gate.end_step()
    timed.join(5)
    assert entered == ["plain", "timed"]
    stopping.set()
    assert not gate.begin_step(stopping)  # a stopping stock begins nothing


def test_a_timed_judging_that_just_took_a_seed_does_not_wait_for_the_refill(
    add_problem: ProblemSpec,
) -> None:
    """Taking a seed wakes the stock to refill; the judging that took it enters the gate a
    moment later. The refill must not begin in that moment: a timed judging would then wait
    for the whole step."""
    gate = IdleGate(settle_s=0.5)
    time.sleep(0.6)  # the judge has long been idle
    stepping = threading.Event()

    def compute(problem: ProblemSpec, seed: int, before_case: Callable[[], None]) -> object:
        stepping.set()
        time.sleep(3.0)  # a long step: building a torch problem's cases
        raise RuntimeError("not needed here")

    cache = ReferenceCache()
    cache.compute = compute  # type: ignore[method-assign]
    seeds = SeedStock(cache, gate, 1)
    try:
        assert seeds.take(add_problem) is None
        time.sleep(0.1)  # the submission's row is written, its judging is queued
        started = time.monotonic()
        with gate.busy(exclusive=True):
            waited = time.monotonic() - started
            refilling = stepping.is_set()
        assert not refilling and waited < 1.0, waited  # a step begun first would hold it 3 s
    finally:
        seeds.close()
