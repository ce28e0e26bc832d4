"""A user's profile: what they solved, how often they submitted, where they stand on the
overall board, and their result on every problem they tried."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from web.accounts.auth import username_key
from web.errors import NotFound
from web.i18n import say
from web.store.db import iso
from web.store.models import ProblemResult, Standing, Submission, User


def profile(db: Session, username: str, *, hidden: set[str]) -> dict[str, Any]:
    """The profile of `username` (any spelling of it); NotFound when nobody has the name.
    Results on `hidden` problems are left out, as the boards leave them out for that viewer."""
    user = db.scalar(select(User).where(User.username_key == username_key(username)))
    if user is None:
        raise NotFound("unknown_user", say("err_unknown_user", name=username))
    results = [
        {
            "problem": r.problem_slug,
            "points": r.best_points,
            "solved": r.solved,
            "attempts": r.attempts,
            "improved_at": iso(r.improved_at),
        }
        for r in db.scalars(
            select(ProblemResult)
            .where(ProblemResult.user_id == user.id)
            .order_by(ProblemResult.problem_slug)
        )
        if r.problem_slug not in hidden
    ]
    count = select(func.count()).select_from(Submission).where(Submission.user_id == user.id)
    if hidden:
        count = count.where(Submission.problem_slug.not_in(hidden))
    standing = db.get(Standing, user.id)
    return {
        "user": user.username,
        "joined_at": iso(user.created_at),
        "rank": overall_rank(db, standing) if standing is not None else None,
        "points": standing.points if standing is not None else 0,
        "solved": [r["problem"] for r in results if r["solved"]],
        "submissions": db.scalar(count) or 0,
        "results": results,
    }


def overall_rank(db: Session, me: Standing) -> int:
    """1 + the rows the overall board puts before `me`, in the board's own order (points
    desc, solved desc, penalty, last improvement, user id), so it matches the board."""
    s = Standing
    ahead = or_(
        s.points > me.points,
        and_(s.points == me.points, s.solved > me.solved),
        and_(s.points == me.points, s.solved == me.solved, s.penalty < me.penalty),
        and_(
            s.points == me.points,
            s.solved == me.solved,
            s.penalty == me.penalty,
            or_(
                s.last_improved_at < me.last_improved_at,
                and_(s.last_improved_at == me.last_improved_at, s.user_id < me.user_id),
            ),
        ),
    )
    return 1 + (db.scalar(select(func.count()).select_from(s).where(ahead)) or 0)
