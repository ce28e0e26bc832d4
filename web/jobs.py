"""Judging one stored submission: claim it, judge it, store the verdict once."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from web import judging, standings
from web.db import transaction, utcnow
from web.models import Submission

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a worker needs; built once per process."""

    sessions: sessionmaker[Session]
    problems: Any  # judge.problemset.ProblemSet
    judge_seed: int
    judge: judging.Judge
    max_attempts: int
    requeue: Callable[[int], None]
    retry_delay_s: float = 0.0


def run_job(ctx: JobContext, submission_id: int) -> None:
    claimed = _claim(ctx, submission_id)
    if claimed is None:
        return  # judged or claimed elsewhere already
    slug, code, attempt = claimed
    outcome = _judge(ctx, slug, code)
    if outcome.verdict == "IE" and attempt < ctx.max_attempts:
        # The judge failed, not the submission: put it back rather than store a verdict.
        log.warning("submission %s: internal error on try %s; retrying", submission_id, attempt)
        time.sleep(ctx.retry_delay_s * attempt)  # a failing judge often needs a moment
        with transaction(ctx.sessions) as db:
            _set_status(db, submission_id, "running", status="queued")
        ctx.requeue(submission_id)
        return
    _store(ctx, submission_id, outcome)


def _claim(ctx: JobContext, submission_id: int) -> tuple[str, str, int] | None:
    with transaction(ctx.sessions) as db:
        changed = db.execute(
            update(Submission)
            .where(Submission.id == submission_id, Submission.status == "queued")
            .values(status="running", started_at=utcnow(), attempts=Submission.attempts + 1)
        ).rowcount
        if changed != 1:
            return None
        row = db.execute(
            select(Submission.problem_slug, Submission.code, Submission.attempts).where(
                Submission.id == submission_id
            )
        ).one()
        return row[0], row[1], row[2]


def _judge(ctx: JobContext, slug: str, code: str) -> judging.Outcome:
    try:
        problem = ctx.problems.get(slug)
        return judging.judge(ctx.judge, problem, code, seed=ctx.judge_seed)
    except judging.UnknownProblem:
        return internal_error(f"problem {slug!r} is no longer on the server")
    except Exception as exc:
        log.exception("judging %s failed", slug)
        return internal_error(f"the judge failed: {type(exc).__name__}")


def internal_error(message: str) -> judging.Outcome:
    report = {"verdict": "IE", "internal_error": message, "cases": []}
    return judging.Outcome("IE", "", 0, 0, 0, None, json.dumps(report))


def _store(ctx: JobContext, submission_id: int, outcome: judging.Outcome) -> None:
    with transaction(ctx.sessions) as db:
        changed = _set_status(
            db,
            submission_id,
            "running",
            status="done",
            verdict=outcome.verdict,
            problem_version=outcome.version or None,
            points=outcome.points,
            passed=outcome.passed,
            total=outcome.total,
            time_ms=outcome.time_ms,
            report_json=outcome.report_json,
            metric=outcome.metric,
            metric_spread=outcome.metric_spread,
            hardware=outcome.hardware,
            judged_at=utcnow(),
        )
        if changed != 1:
            return  # a rejudge reset the row meanwhile; its new run stores the verdict
        user_id, slug = db.execute(
            select(Submission.user_id, Submission.problem_slug).where(
                Submission.id == submission_id
            )
        ).one()
        standings.refresh(db, user_id, slug)


def _set_status(db: Session, submission_id: int, current: str, **values: Any) -> int:
    return db.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == current)
        .values(**values)
    ).rowcount


def recover(sessions: sessionmaker[Session]) -> list[int]:
    """After a restart: rows left 'running' go back to 'queued'; returns every queued id."""
    with transaction(sessions) as db:
        db.execute(update(Submission).where(Submission.status == "running").values(status="queued"))
        ids = db.scalars(
            select(Submission.id).where(Submission.status == "queued").order_by(Submission.id)
        ).all()
    return list(ids)
