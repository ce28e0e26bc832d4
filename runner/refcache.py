"""Expected observations per (problem, version, seed), computed once in the trusted process,
and the calibrated cases' CPU allowances (the reference's own CPU time, run once as a job).

Running reference.py costs as much as running a submission (more, for a torch-tier
problem that builds a model), and every submission to the same problem version with
the same seed needs the same expected values. The cache is bounded (least recently
used entries go first) and computes each key once even when many threads ask at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple

from judge.problem.cases import Case, build_cases
from judge.problem.device import Device
from judge.problem.limits import CpuAllowance
from judge.problem.spec import ProblemSpec
from judge.run.budget import ResultBudget, budget_for
from judge.run.calibration import calibrate
from judge.run.judge_source import run_reference
from judge.run.load_message import load_message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from judge.run.interfaces import Launcher

Key = tuple[str, str, int | None]


class Entry(NamedTuple):
    """What every run of (problem version, seed) shares: the cases (a torch problem's
    cases.py may run the model to build them), their expected observations, and the
    result budget those give (sizing long traces costs milliseconds per run)."""

    cases: list[Case]
    expected: dict[str, object]
    budget: ResultBudget


class ReferenceCache:
    """Thread-safe LRU of `Entry`s keyed by (slug, version, seed)."""

    def __init__(self, max_entries: int = 256) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._entries: OrderedDict[Key, Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[Key, threading.Lock] = {}
        # A calibrated problem's allowances by case name, per problem version: the reference
        # job costs as much as a submission's, and a calibrated case costs the same on every
        # seed (its shape is fixed, only its content is drawn), so each name is measured once
        # even though every submission has a seed of its own.
        self._cpu: dict[tuple[str, str, Device], dict[str, CpuAllowance] | None] = {}
        self._cpu_lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def expected(self, problem: ProblemSpec, seed: int | None) -> dict[str, object]:
        """The reference's observation for every case of (problem, seed)."""
        return self.entry(problem, seed).expected

    def entry(self, problem: ProblemSpec, seed: int | None) -> Entry:
        """The cases of (problem, seed), their expected observations and result budget."""
        key = (problem.slug, problem.version, seed)
        with self._lock:
            if key in self._entries:
                self.hits += 1
                self._entries.move_to_end(key)
                return self._entries[key]
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:  # one thread computes; the others wait for it and then hit
            with self._lock:
                if key in self._entries:
                    self.hits += 1
                    return self._entries[key]
            value = self.compute(problem, seed)
            with self._lock:
                self.misses += 1
                self._computing.pop(key, None)
                self._store(key, value)
        return value

    @staticmethod
    def compute(
        problem: ProblemSpec, seed: int | None, before_case: Callable[[], None] | None = None
    ) -> Entry:
        """The entry of (problem, seed), computed here and not kept: what `entry` stores
        on a miss and what runner.seedstock prepares ahead (`before_case` waits for idle)."""
        cases = build_cases(problem, seed)
        expected = run_reference(problem, cases, before_case)
        return Entry(cases, expected, budget_for(expected))

    def has(self, problem: ProblemSpec, seed: int | None) -> bool:
        """Whether (problem, seed)'s entry is kept (an `entry` now computes nothing)."""
        with self._lock:
            return (problem.slug, problem.version, seed) in self._entries

    def needs_calibration(
        self, problem: ProblemSpec, cases: list[Case], device: Device = Device.CPU
    ) -> bool:
        """Whether `cpu_for` would run the reference for some of `cases` on `device` now."""
        if problem.cpu_rule is None:
            return False
        with self._cpu_lock:
            known = self._cpu.get((problem.slug, problem.version, device), {})
        return known is not None and any(c.calibrated and c.name not in known for c in cases)

    def put(self, problem: ProblemSpec, seed: int | None, entry: Entry) -> None:
        """Keep an entry computed ahead (runner.seedstock), so its submission finds it."""
        with self._lock:
            self._store((problem.slug, problem.version, seed), entry)

    def _store(self, key: Key, value: Entry) -> None:
        """Under the lock."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def cpu(
        self, problem: ProblemSpec, seed: int | None, launcher: Launcher
    ) -> dict[str, CpuAllowance] | None:
        """The calibrated cases' CPU allowances for (problem, seed), measured on `launcher`
        for the case names not measured before; {} for a problem without calibrated cases
        (nothing is run for it); None where the launcher cannot count CPU time."""
        if problem.cpu_rule is None:
            return {}
        return self.cpu_for(problem, self.entry(problem, seed).cases, launcher)

    def cpu_for(
        self, problem: ProblemSpec, cases: list[Case], launcher: Launcher
    ) -> dict[str, CpuAllowance] | None:
        """As `cpu`, for cases already at hand (a seed runner.seedstock prepares). Measured
        on the device the launcher chooses for the problem, and kept per device: a CUDA job's
        allowances count wall time on the GPU, a CPU job's CPU time."""
        if problem.cpu_rule is None:
            return {}
        device = launcher.device_for(problem)
        key = (problem.slug, problem.version, device)
        with self._cpu_lock:  # one reference job at a time; later callers find the result
            known = self._cpu.get(key, {})
            if known is None:
                return None
            missing = [c for c in cases if c.calibrated and c.name not in known]
            if missing:
                load = load_message(problem, problem.reference_source(), device)
                measured = calibrate(problem, missing, launcher, problem.limits, load, device)
                known = None if measured is None else {**known, **measured}
                self._cpu[key] = known
                while len(self._cpu) > self.max_entries:
                    self._cpu.pop(next(iter(self._cpu)))
            return known

    def __len__(self) -> int:
        return len(self._entries)
