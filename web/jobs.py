"""Judging one stored submission: claim it, judge it, store the verdict once."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from judge.judging import internal_error
from judge.spec import ProblemSpec
from judge.verdict import Verdict
from web import judging, standings
from web.db import changed, transaction, utcnow
from web.models import Submission, SubmissionStatus

if TYPE_CHECKING:  # the catalog imports the judging seam too; only the type is needed here
    from web.catalog import ProblemCatalog

QUEUED, RUNNING, DONE = SubmissionStatus.QUEUED, SubmissionStatus.RUNNING, SubmissionStatus.DONE

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a worker needs; built once per process."""

    sessions: sessionmaker[Session]
    problems: ProblemCatalog
    judge_seed: int
    judge: judging.Judge
    max_attempts: int
    requeue: Callable[[int, float], None]  # (submission id, delay in seconds)
    retry_delay_s: float = 0.0


def run_job(ctx: JobContext, submission_id: int) -> None:
    claimed = _claim(ctx, submission_id)
    if claimed is None:
        return  # judged or claimed elsewhere already
    slug, code, attempt = claimed
    run = _judge(ctx, slug, code, submission_id, attempt)
    if run.verdict is Verdict.IE and attempt < ctx.max_attempts:
        # The judge failed, not the submission: put it back rather than store a verdict.
        log.warning("submission %s: internal error on try %s; retrying", submission_id, attempt)
        with transaction(ctx.sessions) as db:
            _set_status(db, submission_id, RUNNING, status=QUEUED)
        # A failing judge often needs a moment: the queue waits, not this judging thread.
        ctx.requeue(submission_id, ctx.retry_delay_s * attempt)
        return
    _store(ctx, submission_id, run)


def _claim(ctx: JobContext, submission_id: int) -> tuple[str, str, int] | None:
    with transaction(ctx.sessions) as db:
        claimed = changed(
            db,
            update(Submission)
            .where(Submission.id == submission_id, Submission.status == QUEUED)
            .values(status=RUNNING, started_at=utcnow(), attempts=Submission.attempts + 1),
        )
        if claimed != 1:
            return None
        row = db.execute(
            select(Submission.problem_slug, Submission.code, Submission.attempts).where(
                Submission.id == submission_id
            )
        ).one()
        return row[0], row[1], row[2]


def _judge(
    ctx: JobContext, slug: str, code: str, submission_id: int, attempt: int
) -> judging.JudgedRun:
    try:
        problem = ctx.problems.get(slug)
        seed = judge_seed_for(ctx.judge_seed, problem, submission_id, attempt)
        return judging.judge(ctx.judge, problem, code, seed=seed)
    except judging.UnknownProblem:
        detail = f"problem {slug!r} is no longer on the server"
    except Exception as exc:
        log.exception("judging %s failed", slug)
        detail = f"the judge failed: {type(exc).__name__}"
    return judging.judged_run(0, internal_error(slug, ctx.judge_seed, detail))


def judge_seed_for(secret: int, problem: ProblemSpec, submission_id: int, attempt: int) -> int:
    """The server's secret seed, and for a speed problem a fresh one per judged attempt.

    A hidden case's verdict and time are shown, so over many submissions they could spell
    out fixed hidden inputs; on most problems that only lets someone hard-code answers
    they could have computed. A speed problem's score would be forged with them (a table of
    answers is faster than any decoding), so each attempt gets inputs of its own, derived
    from the secret: what one submission learns never recurs."""
    if problem.speed is None:
        return secret
    digest = hashlib.blake2b(f"{secret}/{submission_id}/{attempt}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 1


def _store(ctx: JobContext, submission_id: int, outcome: judging.JudgedRun) -> None:
    with transaction(ctx.sessions) as db:
        stored = _set_status(
            db,
            submission_id,
            RUNNING,
            status=DONE,
            verdict=outcome.verdict,
            problem_version=outcome.version or None,
            points=outcome.points,
            passed=outcome.passed,
            total=outcome.total,
            time_ms=outcome.time_ms,
            report_json=outcome.report_json,
            metric=outcome.metric,
            metric_spread=outcome.metric_spread,
            metric_q1=outcome.metric_q1,
            metric_q3=outcome.metric_q3,
            metric_unit=outcome.metric_unit,
            hardware=outcome.hardware,
            judged_at=utcnow(),
        )
        if stored != 1:
            return  # a rejudge reset the row meanwhile; its new run stores the verdict
        user_id, slug = db.execute(
            select(Submission.user_id, Submission.problem_slug).where(
                Submission.id == submission_id
            )
        ).one()
        standings.refresh(db, user_id, slug)


def _set_status(db: Session, submission_id: int, current: SubmissionStatus, **values: Any) -> int:
    return changed(
        db,
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == current)
        .values(**values),
    )


def recover(sessions: sessionmaker[Session]) -> list[int]:
    """After a restart: rows left 'running' go back to 'queued'; returns every queued id."""
    with transaction(sessions) as db:
        db.execute(update(Submission).where(Submission.status == RUNNING).values(status=QUEUED))
        ids = db.scalars(
            select(Submission.id).where(Submission.status == QUEUED).order_by(Submission.id)
        ).all()
    return list(ids)
