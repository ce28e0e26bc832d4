"""Hidden seeds made ready before a learner waits: their cases and reference answers
computed while the judge is idle.

Every submission is judged on generated hidden cases drawn from a seed of its own
(web.judging.jobs.judge_seed_for), so the reference must answer those cases afresh for
each one. On a torch-tier problem that is most of the wait: building batched-decode's
cases and running its reference take longer than judging the submission itself. The
stock keeps `depth` seeds per problem ready, the cases and answers already computed.
A submission's first judging takes one and keeps it as its seed, so the learner waits for
their own code only. The stock begins for a problem at its first submission on this
worker (the first learner pays, as before) and is refilled after each one it serves.

It works only while the judge is idle (`IdleGate`): each step (building a seed's cases,
one case on the reference, the calibration) begins once no judging has run for a moment,
and its thread runs at the lowest CPU priority. A step under way when a judging starts
still finishes beside it (the longest is building a torch problem's cases: seconds), but a
speed problem's judging waits for it to end first, so no timed repetition ever shares the
machine with the stock. A seed is drawn from the operating system's randomness, handed out
once and then forgotten by the stock: what one learner could learn of its cases is of no
use to the next.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from judge.problem.cases import PUBLIC_SEED
from judge.problem.spec import ProblemSpec
from runner.refcache import Entry, ReferenceCache

log = logging.getLogger(__name__)
# The most problem versions the stock serves: beyond it, the one served least recently
# is dropped (a torch problem's ready entry holds megabytes of expected tensors).
MAX_PROBLEMS = 32
LOWEST_PRIORITY = 19  # nice value of the stock's thread
# How long the judge must have been idle before the stock begins a step: a submission that
# has just taken a seed writes it to its row before its judging starts.
SETTLE_S = 2.0


def draw_seed() -> int:
    """A fresh hidden seed: 63 bits, as the database's BIGINT holds, never the public one
    (as web.store.models.draw_hidden_seed)."""
    while True:
        seed = secrets.randbits(63)
        if seed != PUBLIC_SEED:
            return seed


class IdleGate:
    """Whether the judge is judging: `busy()` around every judging; the stock works in
    steps (`begin_step`/`end_step`), each begun only once no judging has run for
    `settle_s` (a submission that just took a seed is about to start: its row is written
    first). A judging that is timed (`busy(exclusive=True)`, a speed problem) also waits for
    a step under way to end, so no step of the stock runs beside a timed repetition."""

    def __init__(self, settle_s: float = SETTLE_S) -> None:
        self._settle_s = settle_s
        self._jobs = 0
        self._working = False
        self._last_busy = time.monotonic()
        self._changed = threading.Condition()

    @contextmanager
    def busy(self, exclusive: bool = False) -> Iterator[None]:
        with self._changed:
            self._jobs += 1
            while exclusive and self._working:
                self._changed.wait()
        try:
            yield
        finally:
            with self._changed:
                self._jobs -= 1
                self._last_busy = time.monotonic()
                self._changed.notify_all()

    def begin_step(self, stopping: threading.Event) -> bool:
        """Wait until the judge has been idle for `settle_s`, then mark a step under way;
        False (no step begun) once `stopping` is set."""
        with self._changed:
            while not stopping.is_set():
                quiet = time.monotonic() - self._last_busy
                if self._jobs == 0 and quiet >= self._settle_s:
                    self._working = True
                    return True
                self._changed.wait(timeout=0.5 if self._jobs else self._settle_s - quiet)
            return False

    def expect_judging(self) -> None:
        """A judging is about to start (its seed was just taken, runner/api.py enters busy()
        next): the quiet period counts from now, so no step begins in between (a timed
        judging would wait for that whole step: 18-37 s on a torch problem)."""
        with self._changed:
            self._last_busy = time.monotonic()
            self._changed.notify_all()

    def end_step(self) -> None:
        with self._changed:
            self._working = False
            self._changed.notify_all()

    @property
    def jobs(self) -> int:
        with self._changed:
            return self._jobs


class _Stopping(Exception):
    """The stock was closed while it computed an entry: the entry is dropped."""


class SeedStock:
    """Per problem version, up to `depth` seeds with their cases and answers computed."""

    def __init__(
        self,
        cache: ReferenceCache,
        gate: IdleGate,
        depth: int,
        *,
        draw: Callable[[], int] = draw_seed,
        prepare: Callable[[ProblemSpec, Entry], None] | None = None,
    ) -> None:
        if depth < 0:
            raise ValueError(f"ready seeds per problem must be 0 or more, got {depth}")
        self.depth = depth
        self._cache = cache
        self._gate = gate
        self._draw = draw
        # After each entry, before it is ready: the CPU calibration of its cases, which runs
        # a reference job once per problem version (runner.refcache.ReferenceCache.cpu_for).
        self._prepare = prepare
        self._ready: OrderedDict[tuple[str, str], list[tuple[int, Entry]]] = OrderedDict()
        self._problems: dict[tuple[str, str], ProblemSpec] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.served = 0  # seeds handed out ready: what a benchmark or a test reads

    def take(self, problem: ProblemSpec) -> int | None:
        """A ready seed for `problem` (its entry put in the cache), or None when none is
        ready yet; either way the stock is (re)filled for it in the background."""
        if self.depth == 0:
            return None
        key = (problem.slug, problem.version)
        with self._lock:
            self._problems[key] = problem
            ready = self._ready.setdefault(key, [])
            self._ready.move_to_end(key)
            while len(self._ready) > MAX_PROBLEMS:
                dropped, _ = self._ready.popitem(last=False)
                self._problems.pop(dropped, None)
            taken = ready.pop(0) if ready else None
            if taken is not None:
                self.served += 1
        if taken is not None:
            seed, entry = taken
            self._cache.put(problem, seed, entry)
        # The judging that asked comes next: the refill must wait for it, not race it.
        self._gate.expect_judging()
        self._start()
        self._wake.set()
        return None if taken is None else taken[0]

    def ready(self, problem: ProblemSpec) -> int:
        """How many seeds are ready for `problem`."""
        with self._lock:
            return len(self._ready.get((problem.slug, problem.version), []))

    def close(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)  # a daemon: a step under way ends with the process

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stopping.is_set():
                self._thread = threading.Thread(target=self._fill, name="seed-stock", daemon=True)
                self._thread.start()

    def _fill(self) -> None:
        _lower_priority()
        while not self._stopping.is_set():
            problem = self._short()
            if problem is None:
                self._wake.wait()
                self._wake.clear()
                continue
            try:
                self._add(problem)
            except _Stopping:
                return
            except Exception:  # a broken problem must not stop the stock for the others
                log.exception("preparing a seed for %s failed", problem.slug)
                with self._lock:
                    self._problems.pop((problem.slug, problem.version), None)

    def _short(self) -> ProblemSpec | None:
        """A problem with fewer than `depth` ready seeds, the most recently served first."""
        with self._lock:
            for key in reversed(self._ready):
                if len(self._ready[key]) < self.depth and key in self._problems:
                    return self._problems[key]
        return None

    def _add(self, problem: ProblemSpec) -> None:
        """One ready seed, computed in steps: building the cases, then each case, then the
        calibration; each step waits for the judge to be idle."""
        self._begin()
        try:
            seed = self._draw()
            entry = self._cache.compute(problem, seed, before_case=self._next_step)
            if self._prepare is not None:
                self._next_step()
                self._prepare(problem, entry)
        finally:
            self._gate.end_step()
        key = (problem.slug, problem.version)
        with self._lock:
            if key in self._problems:
                self._ready[key].append((seed, entry))

    def _next_step(self) -> None:
        self._gate.end_step()
        self._begin()

    def _begin(self) -> None:
        if not self._gate.begin_step(self._stopping):
            raise _Stopping


def _lower_priority() -> None:
    """This thread only (Linux gives each thread its own nice value)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST_PRIORITY)
    except (OSError, AttributeError):  # not Linux, or not allowed: it still waits for idle
        pass
