"""Leaderboard state, kept in step with verdicts: a user's best per problem, and one
standing row per user. Both are recomputed from the stored submissions (the source of
truth) whenever a verdict lands or is cleared, so a rejudge can never leave them stale.
Written with Core statements: this runs once per verdict and ORM bookkeeping was most of
its cost."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Table, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from judge.verdict import Verdict
from web.store.db import changed
from web.store.models import (
    ProblemResult,
    QuizReveal,
    SpeedBest,
    Standing,
    Submission,
    SubmissionStatus,
    User,
)

# Verdicts that are the submitter's fault and count as a wrong try before solving.
PENALISED = frozenset({Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.OLE, Verdict.RE})
RESULTS: Table = ProblemResult.__table__  # type: ignore[assignment]
STANDINGS: Table = Standing.__table__  # type: ignore[assignment]
SPEED_BESTS: Table = SpeedBest.__table__  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Attempt:
    id: int
    verdict: Verdict
    points: int
    created_at: datetime
    metric: float | None
    device_class: str = "cpu"


def refresh(db: Session, user_id: int, slug: str) -> None:
    """Recompute the user's result on `slug` and their standing, in the caller's transaction."""
    # Lock the user row (PostgreSQL) so two verdicts for one user are folded in one by one.
    db.execute(select(User.id).where(User.id == user_id).with_for_update())
    # A quiz question given up on (its explanation seen) ends the quiz's scoring: only the
    # submissions made before the first such moment count.
    gave_up = (
        select(func.min(QuizReveal.revealed_at))
        .where(QuizReveal.user_id == user_id, QuizReveal.problem_slug == slug)
        .scalar_subquery()
    )
    rows = db.execute(
        select(
            Submission.id,
            Submission.verdict,
            Submission.points,
            Submission.created_at,
            Submission.metric,
            Submission.device_class,
        )
        .where(
            Submission.user_id == user_id,
            Submission.problem_slug == slug,
            Submission.status == SubmissionStatus.DONE,
            Submission.verdict.is_not(None),
            Submission.verdict != Verdict.IE,
            or_(gave_up.is_(None), Submission.created_at < gave_up),
        )
        .order_by(Submission.id)
    ).all()
    attempts = [
        Attempt(r.id, r.verdict, r.points, r.created_at, r.metric, r.device_class) for r in rows
    ]
    key = (RESULTS.c.user_id == user_id) & (RESULTS.c.problem_slug == slug)
    if not attempts:
        db.execute(delete(RESULTS).where(key))
    else:
        _upsert(db, RESULTS, key, summarise(attempts), user_id=user_id, problem_slug=slug)
    _store_speed_bests(db, user_id, slug, attempts)
    _store_standing(db, user_id)


def fastest_per_device(attempts: list[Attempt]) -> dict[str, Attempt]:
    """Device class -> the fastest accepted timed attempt on it (ties: the earlier one)."""
    fastest: dict[str, Attempt] = {}
    for a in attempts:
        if a.verdict is not Verdict.AC or a.metric is None:
            continue
        best = fastest.get(a.device_class)
        if best is None or (a.metric, -a.id) > (best.metric, -best.id):
            fastest[a.device_class] = a
    return fastest


def _store_speed_bests(db: Session, user_id: int, slug: str, attempts: list[Attempt]) -> None:
    # Replaced whole: a handful of rows at most, under the user's row lock.
    key = (SPEED_BESTS.c.user_id == user_id) & (SPEED_BESTS.c.problem_slug == slug)
    db.execute(delete(SPEED_BESTS).where(key))
    rows = [
        {
            "user_id": user_id,
            "problem_slug": slug,
            "device_class": device_class,
            "best_metric": a.metric,
            "submission_id": a.id,
        }
        for device_class, a in fastest_per_device(attempts).items()
    ]
    if rows:
        db.execute(insert(SPEED_BESTS), rows)


def summarise(attempts: list[Attempt]) -> dict[str, Any]:
    """A user's result on one problem from their judged attempts, oldest first."""
    best = max(a.points for a in attempts)
    first_ac = next((i for i, a in enumerate(attempts) if a.verdict is Verdict.AC), None)
    wrong = sum(a.verdict in PENALISED for a in attempts[:first_ac]) if first_ac is not None else 0
    timed = [a for a in attempts if a.verdict is Verdict.AC and a.metric is not None]
    fastest = max(timed, key=lambda a: (a.metric, -a.id)) if timed else None
    return {
        "best_points": best,
        "solved": first_ac is not None,
        "wrong_before_ac": wrong,
        "attempts": len(attempts),
        # The moment the best was first reached: later equal scores are not improvements.
        "improved_at": next(a.created_at for a in attempts if a.points == best),
        "best_metric": fastest.metric if fastest else None,
        "best_metric_submission_id": fastest.id if fastest else None,
    }


def _store_standing(db: Session, user_id: int) -> None:
    results = RESULTS.c
    improved = func.max(results.improved_at).filter(results.best_points > 0)
    count, points, solved, penalty, last = db.execute(
        select(
            func.count(),
            func.coalesce(func.sum(results.best_points), 0),
            func.count().filter(results.solved.is_(True)),
            func.coalesce(func.sum(results.wrong_before_ac).filter(results.solved.is_(True)), 0),
            func.coalesce(improved, func.min(results.improved_at)),
        ).where(results.user_id == user_id)
    ).one()
    key = STANDINGS.c.user_id == user_id
    if count == 0:
        db.execute(delete(STANDINGS).where(key))
        return
    values = {
        "points": int(points),
        "solved": int(solved),
        "penalty": int(penalty),
        "last_improved_at": last,
    }
    _upsert(db, STANDINGS, key, values, user_id=user_id)


def _upsert(db: Session, table: Table, key: Any, values: dict[str, Any], **ids: Any) -> None:
    # UPDATE, then INSERT if nothing matched: portable across SQLite and PostgreSQL, and
    # safe here because the caller holds the user's row lock (one writer per user).
    if changed(db, update(table).where(key).values(**values)) == 0:
        db.execute(insert(table).values(**ids, **values))
