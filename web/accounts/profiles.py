"""A user's profile: what they solved, how often they submitted, where they stand on the
overall board, and their result on every problem they tried."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from judge.verdict import Verdict
from web.accounts.auth import username_key
from web.errors import NotFound
from web.i18n import say
from web.store.db import iso
from web.store.models import ProblemResult, Standing, Submission, User
from web.store.status import SubmissionStatus


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
            "solved_at": iso(r.solved_at) if r.solved else None,
            "speed": {"value": r.metric, "unit": r.metric_unit} if r.metric is not None else None,
        }
        for r in db.execute(results_query(user.id))
        if r.problem_slug not in hidden
    ]
    # Most recently solved first: the list shows what the learner has been doing lately,
    # and a slug order said nothing a reader could not see from the problem list.
    solved = sorted(
        (r for r in results if r["solved"]), key=lambda r: r["solved_at"] or "", reverse=True
    )
    count = select(func.count()).select_from(Submission).where(Submission.user_id == user.id)
    if hidden:
        count = count.where(Submission.problem_slug.not_in(hidden))
    standing = db.get(Standing, user.id)
    return {
        "user": user.username,
        "joined_at": iso(user.created_at),
        "rank": overall_rank(db, standing) if standing is not None else None,
        "points": standing.points if standing is not None else 0,
        "solved": [r["problem"] for r in solved],
        "submissions": db.scalar(count) or 0,
        "results": results,
    }


def results_query(user_id: int) -> Select[*tuple[Any, ...]]:
    """The user's result on every problem, by slug, with the moment of their first accepted
    submission and, on a speed problem, their fastest accepted run's score and unit."""
    first_ac = (
        select(Submission.problem_slug, func.min(Submission.created_at).label("solved_at"))
        .where(
            Submission.user_id == user_id,
            Submission.status == SubmissionStatus.DONE,
            Submission.verdict == Verdict.AC,
        )
        .group_by(Submission.problem_slug)
        .subquery()
    )
    fastest = aliased(Submission)
    return (
        select(
            ProblemResult.problem_slug,
            ProblemResult.best_points,
            ProblemResult.solved,
            ProblemResult.attempts,
            ProblemResult.improved_at,
            first_ac.c.solved_at,
            fastest.metric,
            fastest.metric_unit,
        )
        .outerjoin(first_ac, first_ac.c.problem_slug == ProblemResult.problem_slug)
        .outerjoin(fastest, fastest.id == ProblemResult.best_metric_submission_id)
        .where(ProblemResult.user_id == user_id)
        .order_by(ProblemResult.problem_slug)
    )


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
