"""Leaderboard reads: each board's page of rows is one SQL query over indexed columns; the
overall board runs a second one, a count of its rows, for its total."""

from __future__ import annotations

from bisect import bisect_right, insort
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, case, distinct, func, select
from sqlalchemy.orm import Session

from judge.problem.spec import ProblemSpec
from judge.verdict import Verdict
from web.boards import device_class
from web.store.db import iso
from web.store.models import ProblemResult, SpeedBest, Standing, Submission, User
from web.store.status import SubmissionStatus


def overall(db: Session, *, limit: int, offset: int) -> dict[str, Any]:
    """Points desc, solved desc, penalty asc, then the earlier last improvement wins."""
    rows = db.execute(overall_query(limit, offset)).all()
    total = db.scalar(select(func.count()).select_from(Standing)) or 0
    entries = [
        {
            "rank": offset + i + 1,
            "user": r.username,
            "points": r.points,
            "solved": r.solved,
            "penalty": r.penalty,
            "last_improved_at": iso(r.last_improved_at),
        }
        for i, r in enumerate(rows)
    ]
    return {"total": total, "offset": offset, "limit": limit, "entries": entries}


def problem_board(db: Session, slug: str, *, limit: int) -> list[dict[str, Any]]:
    rows = db.execute(problem_query(slug, limit)).all()
    return [
        {
            "rank": i + 1,
            "user": r.username,
            "points": r.best_points,
            "solved": r.solved,
            "penalty": r.wrong_before_ac if r.solved else 0,
            "attempts": r.attempts,
            "improved_at": iso(r.improved_at),
        }
        for i, r in enumerate(rows)
    ]


def speed_boards(db: Session, slug: str, *, limit: int) -> list[dict[str, Any]]:
    """One board per device class a timed run of `slug` was measured on, CPU's first:
    {"device_class": "cpu" or "gpu:<model>", "title": "CPU" or "GPU · <model>", "entries"}.
    A CPU score never ranks beside a GPU score (web/boards/device_class.py)."""
    classes = sorted(db.scalars(device_classes_query(slug)).all(), key=device_class.board_order)
    return [
        {
            "device_class": cls,
            "title": device_class.title(cls),
            "entries": speed_board(db, slug, cls, limit=limit),
        }
        for cls in classes
    ]


def speed_board(db: Session, slug: str, cls: str, *, limit: int) -> list[dict[str, Any]]:
    """Each user's fastest accepted run on device class `cls`: its score (the median rate),
    its interquartile range and hardware, fastest first. Scores whose ranges overlap are not
    told apart: rank = 1 + the number of entries whose q1 is above this entry's q3
    (entirely better)."""
    rows = db.execute(speed_query(slug, cls, limit)).all()
    lows_above: list[float] = []  # the q1 of every entry so far, sorted
    board = []
    for r in rows:
        # A run stored without quartiles is its score alone (a range of width 0).
        q1 = r.metric_q1 if r.metric_q1 is not None else r.metric
        q3 = r.metric_q3 if r.metric_q3 is not None else r.metric
        # Only faster entries can lie entirely above this one (their q1 > q3 >= median >=
        # the medians after them), and the board is walked fastest first: those are all
        # before this row, so the page's own prefix decides its rank.
        rank = 1 + len(lows_above) - bisect_right(lows_above, q3)
        insort(lows_above, q1)
        board.append(
            {
                "rank": rank,
                "user": r.username,
                "submission": r.id,
                "value": r.metric,
                "unit": r.metric_unit,
                "q1": q1,
                "q3": q3,
                "iqr": q3 - q1,
                "hardware": r.hardware,
                "submitted_at": iso(r.created_at),
            }
        )
    return board


def speed_board_of(db: Session, problem: ProblemSpec, *, limit: int) -> list[dict[str, Any]] | None:
    """The speed boards a page shows (one per device class; none yet is an empty list):
    None for a problem that measures no speed (no [speed] table in its problem.toml) and
    has no timed run stored."""
    boards = speed_boards(db, problem.slug, limit=limit)
    if boards or problem.speed is not None:
        return boards
    return None


def progress(db: Session, user_id: int) -> dict[str, str]:
    """slug -> "solved" or "tried" for one user (the problem list's progress column)."""
    rows = db.execute(
        select(ProblemResult.problem_slug, ProblemResult.solved).where(
            ProblemResult.user_id == user_id
        )
    ).all()
    return {slug: "solved" if solved else "tried" for slug, solved in rows}


@dataclass(frozen=True, slots=True)
class ProblemStats:
    """How a problem went for everyone: the problem list's solved and acceptance columns."""

    solved: int  # distinct users with an accepted submission
    accepted: int  # accepted submissions
    judged: int  # judged submissions (IE is the judge's failure, not an attempt)

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.judged if self.judged else None


def problem_stats(db: Session) -> dict[str, ProblemStats]:
    """slug -> ProblemStats for every problem with a judged submission, in one query."""
    return {
        r.problem_slug: ProblemStats(r.solved, r.accepted or 0, r.judged)
        for r in db.execute(stats_query()).all()
    }


# The statements, apart so that a test can check each one's plan walks an index.


def overall_query(limit: int, offset: int) -> Select[*tuple[Any, ...]]:
    # Columns, not ORM objects: a board is read-only and object loading cost more than SQL.
    return (
        select(
            User.username,
            Standing.points,
            Standing.solved,
            Standing.penalty,
            Standing.last_improved_at,
        )
        .join(User, User.id == Standing.user_id)
        .order_by(
            Standing.points.desc(),
            Standing.solved.desc(),
            Standing.penalty,
            Standing.last_improved_at,
            Standing.user_id,
        )
        .limit(limit)
        .offset(offset)
    )


def problem_query(slug: str, limit: int) -> Select[*tuple[Any, ...]]:
    return (
        select(
            User.username,
            ProblemResult.best_points,
            ProblemResult.solved,
            ProblemResult.wrong_before_ac,
            ProblemResult.attempts,
            ProblemResult.improved_at,
        )
        .join(User, User.id == ProblemResult.user_id)
        .where(ProblemResult.problem_slug == slug)
        .order_by(
            ProblemResult.best_points.desc(),
            ProblemResult.wrong_before_ac,
            ProblemResult.improved_at,
            ProblemResult.user_id,
        )
        .limit(limit)
    )


def device_classes_query(slug: str) -> Select[str]:
    return (
        select(SpeedBest.device_class)
        .where(SpeedBest.problem_slug == slug)
        .distinct()
        .order_by(SpeedBest.device_class)
    )


def speed_query(slug: str, cls: str, limit: int) -> Select[*tuple[Any, ...]]:
    return (
        select(
            User.username,
            Submission.id,
            Submission.metric,
            Submission.metric_q1,
            Submission.metric_q3,
            Submission.metric_unit,
            Submission.hardware,
            Submission.created_at,
        )
        .select_from(SpeedBest)
        .join(Submission, Submission.id == SpeedBest.submission_id)
        .join(User, User.id == SpeedBest.user_id)
        .where(SpeedBest.problem_slug == slug, SpeedBest.device_class == cls)
        .order_by(SpeedBest.best_metric.desc(), SpeedBest.submission_id)
        .limit(limit)
    )


def stats_query() -> Select[*tuple[Any, ...]]:
    accepted = Submission.verdict == Verdict.AC
    return (
        select(
            Submission.problem_slug,
            func.count(distinct(case((accepted, Submission.user_id)))).label("solved"),
            func.sum(case((accepted, 1), else_=0)).label("accepted"),
            func.count().label("judged"),
        )
        .where(
            Submission.status == SubmissionStatus.DONE,
            Submission.verdict.is_not(None),
            Submission.verdict != Verdict.IE,
        )
        .group_by(Submission.problem_slug)
    )
