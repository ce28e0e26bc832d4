"""Finds submissions whose judging was lost and queues them again.

Two ways a submission is lost on a distributed queue: its claim's lease ran out (the
worker died, or hangs, mid-job), or it is queued in the database while no message for it
exists (the broker restarted without it, or the server died between storing the row and
sending its message). Every `judge worker` runs a sweeper; a sweep is idempotent, so
several at once only send a few duplicate messages, which the claim turns into no-ops.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from web.judging.jobqueue import JudgeQueue
from web.store.db import transaction, utcnow
from web.store.models import Submission, SubmissionStatus

QUEUED, RUNNING = SubmissionStatus.QUEUED, SubmissionStatus.RUNNING

log = logging.getLogger(__name__)


class Sweeper:
    """Every `every_s`: rows running past their lease go back to queued, and rows queued
    for over `requeue_after_s` (these included) are sent again. A row sent again is dated
    anew, so a long backlog is resent at most once per `requeue_after_s`, not every sweep."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        queue: JudgeQueue,
        requeue_after_s: float,
        every_s: float,
        beat: Callable[[], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._queue = queue
        self._requeue_after = timedelta(seconds=requeue_after_s)
        self._every_s = every_s
        self._beat = beat  # called after each sweep: the worker's "still here"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sweep(self) -> list[int]:
        """One sweep; returns the ids it sent again."""
        now = utcnow()
        lapsed = (Submission.status == RUNNING) & or_(
            Submission.lease_until < now, Submission.lease_until.is_(None)
        )
        stale = (Submission.status == QUEUED) & or_(
            Submission.queued_at < now - self._requeue_after, Submission.queued_at.is_(None)
        )
        with transaction(self._sessions) as db:
            # The lapsed claim's worker, if it ever wakes, finds the row no longer its own
            # (web.judging.jobs fences every write on status and attempt) and stores nothing.
            returned = db.scalars(select(Submission.id).where(lapsed)).all()
            if returned:
                db.execute(
                    update(Submission)
                    .where(Submission.id.in_(returned), lapsed)
                    .values(status=QUEUED, lease_until=None, queued_at=now)
                )
            resent = db.scalars(select(Submission.id).where(stale)).all()
            if resent:
                db.execute(
                    update(Submission).where(Submission.id.in_(resent), stale).values(queued_at=now)
                )
        ids = sorted({*returned, *resent})
        for submission_id in ids:
            self._queue.enqueue(submission_id)
        if ids:
            log.warning(
                "sweeper: %d past their lease, %d queued too long: sent again",
                len(returned),
                len(resent),
            )
        return ids

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="judge-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _loop(self) -> None:
        while not self._stop.wait(self._every_s):
            try:
                self.sweep()
                if self._beat is not None:
                    self._beat()
            except Exception:  # the database or broker is down: the next sweep tries again
                log.exception("sweep failed")
