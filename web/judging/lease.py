"""Leases on claimed submissions, renewed while their jobs run (web.judging.jobs).

A lease is kept alive by one thread per process, not one per job: starting a thread
waits for the interpreter lock, which the request thread that just queued the job often
still holds (a millisecond or two per job, measured in bench/bench_cluster.py's no-backlog
claim path). The keeper wakes about once a second, renews each lease every third of its
length and writes each job's progress when it moved. A worker that dies or hangs stops
renewing, and once a lease has run out another worker may claim the row; renewing a claim
that was lost changes no row (every write is fenced on the claim's attempt).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from judge.run.phase import Phase
from web.store.db import transaction, utcnow

PROGRESS_EVERY_S = 1.0  # how often the keeper looks at every lease

log = logging.getLogger(__name__)

# Writes `values` to the claimed row only while the claim still holds it (web.judging.jobs).
HeldWrite = Callable[[Session, dict[str, Any]], int]


class Lease:
    """One claim's lease: when it was last renewed and how far its job has got."""

    def __init__(
        self, sessions: sessionmaker[Session], lease_s: float, write: HeldWrite, label: str
    ) -> None:
        self._sessions = sessions
        self._lease_s = lease_s
        self._write_held = write
        self.label = label
        self._lock = threading.Lock()
        self._progress: Phase | None = None
        self._written: Phase | None = None
        self._renewed = utcnow()

    def progress(self, phase: Phase) -> None:
        """The judge's progress callback: where the judging has got to."""
        with self._lock:
            self._progress = phase

    def beat(self, now: datetime) -> None:
        """Renew if a third of the lease has passed, write progress if it moved."""
        with self._lock:
            progress = self._progress
        due = (now - self._renewed).total_seconds() >= self._lease_s / 3
        if progress == self._written and not due:
            return
        values: dict[str, Any] = {"lease_until": now + timedelta(seconds=self._lease_s)}
        if progress is not None:
            values["progress_done"], values["progress_total"] = progress.done, progress.total
            values["progress_stage"] = progress.stage.value
            values["progress_step"], values["progress_of"] = progress.step, progress.of
        with transaction(self._sessions) as db:
            self._write_held(db, values)
        self._renewed, self._written = now, progress


class LeaseKeeper:
    """The thread that beats every lease held in this process."""

    def __init__(self, every_s: float = PROGRESS_EVERY_S) -> None:
        self._every_s = every_s
        self._leases: set[Lease] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextmanager
    def held(self, lease: Lease) -> Iterator[Lease]:
        with self._lock:
            self._leases.add(lease)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="leases", daemon=True)
                self._thread.start()
        try:
            yield lease
        finally:
            with self._lock:
                self._leases.discard(lease)

    def _loop(self) -> None:
        stop = threading.Event()  # never set: the keeper lives as long as its process
        while not stop.wait(self._every_s):
            with self._lock:
                leases = list(self._leases)
            now = utcnow()
            for lease in leases:
                try:
                    lease.beat(now)
                except Exception:  # the next beat tries again; a lease may lapse, never corrupt
                    log.exception("renewing the lease of %s", lease.label)


KEEPER = LeaseKeeper()
