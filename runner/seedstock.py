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

It works only while the judge is idle (`IdleGate`): it stops between cases as soon as a
job starts, and its thread runs at the lowest CPU priority, so it never slows a judging.
A seed is drawn from the operating system's randomness, handed out once and then forgotten
by the stock. What one learner could learn of its cases is of no use to the next.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from judge.problem.spec import ProblemSpec
from runner.refcache import Entry, ReferenceCache

log = logging.getLogger(__name__)
# The most problem versions the stock serves: beyond it, the one served least recently
# is dropped (a torch problem's ready entry holds megabytes of expected tensors).
MAX_PROBLEMS = 32
LOWEST_PRIORITY = 19  # nice value of the stock's thread


def draw_seed() -> int:
    """A fresh hidden seed: 63 bits, as the database's BIGINT holds (web.store.models)."""
    return secrets.randbits(63)


class IdleGate:
    """Whether the judge is judging: `busy()` around every job, `wait_idle()` for the stock."""

    def __init__(self) -> None:
        self._jobs = 0
        self._changed = threading.Condition()

    @contextmanager
    def busy(self) -> Iterator[None]:
        with self._changed:
            self._jobs += 1
        try:
            yield
        finally:
            with self._changed:
                self._jobs -= 1
                self._changed.notify_all()

    def wait_idle(self, stopping: threading.Event) -> None:
        """Return once no job runs (or the stock is stopping)."""
        with self._changed:
            while self._jobs and not stopping.is_set():
                self._changed.wait(timeout=0.5)


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
            self._thread.join(timeout=30)

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
        self._idle()
        seed = self._draw()
        entry = self._cache.compute(problem, seed, before_case=self._idle)
        if self._prepare is not None:
            self._idle()
            self._prepare(problem, entry)
        key = (problem.slug, problem.version)
        with self._lock:
            if key in self._problems:
                self._ready[key].append((seed, entry))

    def _idle(self) -> None:
        self._gate.wait_idle(self._stopping)
        if self._stopping.is_set():
            raise _Stopping


def _lower_priority() -> None:
    """This thread only (Linux gives each thread its own nice value)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST_PRIORITY)
    except (OSError, AttributeError):  # not Linux, or not allowed: it still waits for idle
        pass
