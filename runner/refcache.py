"""Expected observations per (problem, version, seed), computed once in the trusted process.

Running reference.py costs as much as running a submission (more, for a torch-tier
problem that builds a model), and every submission to the same problem version with
the same seed needs the same expected values. The cache is bounded (least recently
used entries go first) and computes each key once even when many threads ask at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from judge.budget import ResultBudget, budget_for
from judge.cases import build_cases
from judge.judging import expected_observations
from judge.spec import ProblemSpec

Key = tuple[str, str, int | None]


class ReferenceCache:
    """Thread-safe LRU of expected observations keyed by (slug, version, seed), each with
    the result budget derived from them (sizing long traces costs milliseconds per run)."""

    def __init__(self, max_entries: int = 256) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._entries: OrderedDict[Key, tuple[dict[str, object], ResultBudget]] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[Key, threading.Lock] = {}
        self.hits = 0
        self.misses = 0

    def expected(self, problem: ProblemSpec, seed: int | None) -> dict[str, object]:
        """The reference's observation for every case of (problem, seed)."""
        return self.entry(problem, seed)[0]

    def entry(
        self, problem: ProblemSpec, seed: int | None
    ) -> tuple[dict[str, object], ResultBudget]:
        """The expected observations of (problem, seed) and the result budget they give."""
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
            expected = expected_observations(problem, build_cases(problem, seed))
            value = (expected, budget_for(expected))
            with self._lock:
                self.misses += 1
                self._entries[key] = value
                self._computing.pop(key, None)
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._entries)
