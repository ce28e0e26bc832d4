"""What an admin can change: rejudge a problem's submissions, hide or show a problem."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from web.boards import standings
from web.state import PlatformState
from web.store.db import changed, put_row, utcnow
from web.store.models import ProblemFlag, Submission, SubmissionStatus


def rejudge(state: PlatformState, db: Session, slug: str, version: str | None) -> int:
    """Re-queue the judged submissions of `slug` (only those judged on `version`, if given)
    against the problem as it is on disk now; returns how many were re-queued."""
    state.catalog.reload()
    problem = state.catalog.find(db, slug, admin=True)
    where = [Submission.problem_slug == problem.slug, Submission.status == SubmissionStatus.DONE]
    if version is not None:
        where.append(Submission.problem_version == version)
    users = set(db.scalars(select(Submission.user_id).where(*where).distinct()))
    # A new attempt: `attempts` (the fencing token) goes on counting, the retry count restarts.
    cleared = _CLEARED | {"queued_at": utcnow()}
    count = changed(db, update(Submission).where(*where).values(**cleared))
    for user_id in users:  # standings drop the cleared verdicts until the new ones land
        standings.refresh(db, user_id, problem.slug)
    db.commit()
    # Enqueue every queued row of the problem: duplicates are harmless (a job claims its
    # row atomically) and none is missed if a verdict landed between the reads above.
    queued = select(Submission.id).where(
        Submission.problem_slug == problem.slug, Submission.status == SubmissionStatus.QUEUED
    )
    for submission_id in db.scalars(queued.order_by(Submission.id)):
        state.queue.enqueue(submission_id)
    return count


_CLEARED = {
    "status": SubmissionStatus.QUEUED,
    "verdict": None,
    "points": 0,
    "passed": 0,
    "total": 0,
    "report_json": None,
    "metric": None,
    "metric_spread": None,
    "metric_q1": None,
    "metric_q3": None,
    "metric_unit": None,
    "hardware": None,
    "device_class": "cpu",
    "judged_at": None,
    "tries": 0,
    "lease_until": None,
}


def set_hidden(state: PlatformState, db: Session, slug: str, hidden: bool) -> None:
    problem = state.catalog.find(db, slug, admin=True)
    # One upsert: the same form sent twice at once sets the flag twice, never a key error.
    put_row(db, ProblemFlag, {"slug": problem.slug}, {"hidden": hidden, "updated_at": utcnow()})
    db.commit()
