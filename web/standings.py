"""Leaderboard state, kept in step with verdicts: a user's best per problem, and one
standing row per user. Both are recomputed from the stored submissions (the source of
truth) whenever a verdict lands or is cleared, so a rejudge can never leave them stale."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from web.models import ProblemResult, Standing, Submission, User

# Verdicts that are the submitter's fault and count as a wrong try before solving.
PENALISED = ("WA", "TLE", "MLE", "OLE", "RE")


@dataclass(frozen=True, slots=True)
class Attempt:
    verdict: str
    points: int
    created_at: datetime


def refresh(db: Session, user_id: int, slug: str) -> None:
    """Recompute the user's result on `slug` and their standing, in the caller's transaction."""
    # Lock the user row (PostgreSQL) so two verdicts for one user are folded in one by one.
    db.execute(select(User.id).where(User.id == user_id).with_for_update())
    rows = db.execute(
        select(Submission.verdict, Submission.points, Submission.created_at)
        .where(
            Submission.user_id == user_id,
            Submission.problem_slug == slug,
            Submission.status == "done",
            Submission.verdict.is_not(None),
            Submission.verdict != "IE",
        )
        .order_by(Submission.id)
    ).all()
    _store_result(db, user_id, slug, [Attempt(v, p, t) for v, p, t in rows])
    _store_standing(db, user_id)


def _store_result(db: Session, user_id: int, slug: str, attempts: list[Attempt]) -> None:
    result = db.get(ProblemResult, (user_id, slug))
    if not attempts:
        if result is not None:
            db.delete(result)
        return
    if result is None:
        result = ProblemResult(user_id=user_id, problem_slug=slug)
        db.add(result)
    best = max(a.points for a in attempts)
    first_ac = next((i for i, a in enumerate(attempts) if a.verdict == "AC"), None)
    before = attempts if first_ac is None else attempts[:first_ac]
    result.best_points = best
    result.solved = first_ac is not None
    wrong = sum(a.verdict in PENALISED for a in before)
    result.wrong_before_ac = wrong if first_ac is not None else 0
    result.attempts = len(attempts)
    # The moment the best was first reached: later equal scores are not improvements.
    result.improved_at = next(a.created_at for a in attempts if a.points == best)
    db.flush()


def _store_standing(db: Session, user_id: int) -> None:
    improved = func.max(ProblemResult.improved_at).filter(ProblemResult.best_points > 0)
    row = db.execute(
        select(
            func.count(),
            func.coalesce(func.sum(ProblemResult.best_points), 0),
            func.count().filter(ProblemResult.solved.is_(True)),
            func.coalesce(
                func.sum(ProblemResult.wrong_before_ac).filter(ProblemResult.solved.is_(True)), 0
            ),
            func.coalesce(improved, func.min(ProblemResult.improved_at)),
        ).where(ProblemResult.user_id == user_id)
    ).one()
    count, points, solved, penalty, last = row
    if count == 0:
        db.execute(delete(Standing).where(Standing.user_id == user_id))
        return
    standing = db.get(Standing, user_id)
    if standing is None:
        standing = Standing(user_id=user_id)
        db.add(standing)
    standing.points, standing.solved, standing.penalty = int(points), int(solved), int(penalty)
    standing.last_improved_at = last
