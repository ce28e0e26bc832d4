"""Judging one stored submission: claim it under a lease, judge it, store the verdict once.

The same code runs in the embedded queue's threads and in Celery workers (celery_worker.py).
At least once, recorded once: a submission may be delivered to several workers (a task
redelivered after its worker died, a duplicate message, the sweeper's resend), but only
one claim holds it at a time, and a verdict is stored only by the claim that still holds
it (the row's `attempts` is the fencing token, `judgings` is unique per attempt).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.orm import Session, aliased, sessionmaker

from judge.problem.device import Device
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import internal_error
from judge.verdict import Verdict
from web.boards import standings
from web.judging import core_seam
from web.judging.lease import KEEPER, Lease
from web.store.db import changed, transaction, utcnow
from web.store.models import Judging, Submission, SubmissionStatus

if TYPE_CHECKING:  # the catalog imports the judging seam too; only the type is needed here
    from web.judging.catalog import ProblemCatalog

QUEUED, RUNNING, DONE = SubmissionStatus.QUEUED, SubmissionStatus.RUNNING, SubmissionStatus.DONE
# A row's progress, cleared when it is claimed and when it is judged.
NO_PROGRESS: dict[str, None] = dict.fromkeys(
    ("progress_done", "progress_total", "progress_stage", "progress_step", "progress_of")
)
GAVE_UP = "the judge did not finish this submission after {tries} tries"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a worker needs; built once per process."""

    sessions: sessionmaker[Session]
    problems: ProblemCatalog
    judge_seed: int
    judge: core_seam.Judge
    max_attempts: int
    requeue: Callable[[int, float], None]  # (submission id, delay in seconds)
    retry_delay_s: float = 0.0
    lease_s: float = 30.0
    worker: str = "embedded"  # who claims: shown to admins, recorded with each verdict
    # Submissions of one account judged at once, across every worker: one account's backlog
    # never holds every worker (docs/CLUSTER.md, "Fair judging").
    judging_per_user: int = 1


@dataclass(frozen=True, slots=True)
class Claim:
    """A worker's hold on one submission: `attempt` is the fencing token."""

    submission_id: int
    slug: str
    code: str
    attempt: int
    tries: int
    hidden_seed: int | None  # the row's own (None: a row from before migration 0011)


def run_job(ctx: JobContext, submission_id: int) -> None:
    """Judge the fairest queued submission this message may wake (see `_claim`), then the
    next fairest, until none may be taken: a row passed over while its account had
    `judging_per_user` being judged has a message that may already be spent, so the
    worker that ends a judging looks again (docs/CLUSTER.md, "Fair judging")."""
    while (claim := _claim(ctx, submission_id)) is not None:
        _judge_claimed(ctx, claim)


def _judge_claimed(ctx: JobContext, claim: Claim) -> None:
    if claim.tries > ctx.max_attempts:
        # Claimed again and again without a verdict (its workers died or hung): give up.
        detail = GAVE_UP.format(tries=claim.tries - 1)
        _store(ctx, claim, core_seam.judged_run(0, internal_error(claim.slug, None, detail)))
        return
    label = f"submission {claim.submission_id}"
    lease = Lease(ctx.sessions, ctx.lease_s, partial(_write_held, claim), label)
    with KEEPER.held(lease):
        run = _judge(ctx, claim, lease.progress)
    if run.verdict is Verdict.IE and claim.tries < ctx.max_attempts:
        # The judge failed, not the submission: put it back rather than store a verdict.
        log.warning("submission %s: internal error on try %s; retrying", *_tried(claim))
        delay = ctx.retry_delay_s * claim.tries
        # Not taken again before its pause is over (`queued_at` is when it may be).
        not_before = utcnow() + timedelta(seconds=delay)
        with transaction(ctx.sessions) as db:
            back = _set_held(db, claim, status=QUEUED, queued_at=not_before, lease_until=None)
        if back:  # a failing judge often needs a moment: the queue waits, not this thread
            ctx.requeue(claim.submission_id, delay)
        return
    _store(ctx, claim, run)


# Rows another worker took first, passed over before a message gives up (each miss means
# another worker took a row: the queue moved).
CLAIM_TRIES = 100


def _claim(ctx: JobContext, submission_id: int) -> Claim | None:
    """Take the fairest row a message for `submission_id` may take: a queued one (or a
    running one whose lease ran out: its worker died or hangs) of a problem judged on the
    same kind of worker, of a user with fewer than `judging_per_user` being judged, from
    the user with the fewest submissions being judged now, then
    the one served longest ago (round robin over users), then the longest waiting. Every
    queued row has a message of its own and each message takes at most one row, so every
    row is taken; but one user's backlog no longer holds every other user's submission
    behind it (docs/CLUSTER.md, "Fair judging")."""
    with ctx.sessions() as db:
        kin = _judged_alike(ctx, db, submission_id)
    for _ in range(CLAIM_TRIES):
        # A transaction per try: what the last one saw (SQLite's snapshot) may be taken.
        now = utcnow()
        with transaction(ctx.sessions) as db:
            chosen = _fairest(db, now, submission_id, kin, ctx.judging_per_user)
            if chosen is None:
                return None
            claim = _take(ctx, db, now, chosen)
            if claim is not None:
                return claim
    return None


def _judged_alike(ctx: JobContext, db: Session, submission_id: int) -> list[str]:
    """The problems judged on the kind of worker `submission_id`'s problem needs (a GPU
    one, or any): the rows its message may take."""
    slug = db.scalar(select(Submission.problem_slug).where(Submission.id == submission_id))
    try:
        needs_gpu = needs_a_gpu(ctx.problems.get(slug)) if slug is not None else False
    except core_seam.UnknownProblem:
        return []  # its own row only: judged to say the problem is gone
    return [p.slug for p in ctx.problems.all() if needs_a_gpu(p) == needs_gpu]


def needs_a_gpu(problem: ProblemSpec) -> bool:
    """Judged only on CUDA: only a worker with a GPU may take it."""
    return Device.CPU not in problem.devices


def _fairest(
    db: Session, now: datetime, submission_id: int, kin: list[str], per_user: int
) -> int | None:
    other = aliased(Submission)
    being_judged = (
        select(func.count())
        .where(
            other.user_id == Submission.user_id,
            other.status == RUNNING,
            other.lease_until >= now,
        )
        .scalar_subquery()
    )
    last_served = (  # when this user's latest submission was taken: the longest ago goes first
        select(func.max(other.started_at)).where(other.user_id == Submission.user_id)
    ).scalar_subquery()
    takeable = or_(
        (Submission.status == QUEUED)
        & or_(Submission.queued_at.is_(None), Submission.queued_at <= now),
        (Submission.status == RUNNING) & (Submission.lease_until < now),
    )
    return db.scalar(
        select(Submission.id)
        .where(takeable, or_(Submission.problem_slug.in_(kin), Submission.id == submission_id))
        .where(being_judged < per_user)
        .order_by(
            being_judged, last_served.asc().nulls_first(), Submission.queued_at, Submission.id
        )
        .limit(1)
    )


def _take(ctx: JobContext, db: Session, now: datetime, submission_id: int) -> Claim | None:
    """Claim `submission_id` if it is still takeable (another worker may have been first)."""
    claimed = changed(
        db,
        update(Submission)
        .where(
            Submission.id == submission_id,
            or_(
                Submission.status == QUEUED,
                (Submission.status == RUNNING) & (Submission.lease_until < now),
            ),
        )
        .values(
            status=RUNNING,
            started_at=now,
            attempts=Submission.attempts + 1,
            tries=Submission.tries + 1,
            lease_until=now + timedelta(seconds=ctx.lease_s),
            claimed_by=ctx.worker,
            **NO_PROGRESS,
        ),
    )
    if claimed != 1:
        return None
    row = db.execute(
        select(
            Submission.problem_slug,
            Submission.code,
            Submission.attempts,
            Submission.tries,
            Submission.hidden_seed,
        ).where(Submission.id == submission_id)
    ).one()
    return Claim(submission_id, *row)


def _judge(ctx: JobContext, claim: Claim, progress: core_seam.Progress) -> core_seam.JudgedRun:
    try:
        problem = ctx.problems.get(claim.slug)
        stored = _ready_seed(ctx, claim, problem)
        seed = judge_seed_for(
            ctx.judge_seed, problem, claim.submission_id, claim.attempt, stored=stored
        )
        return core_seam.judge(ctx.judge, problem, claim.code, seed=seed, progress=progress)
    except core_seam.UnknownProblem:
        detail = f"problem {claim.slug!r} is no longer on the server"
    except Exception as exc:
        log.exception("judging %s failed", claim.slug)
        detail = f"the judge failed: {type(exc).__name__}"
    return core_seam.judged_run(0, internal_error(claim.slug, ctx.judge_seed, detail))


def _ready_seed(ctx: JobContext, claim: Claim, problem: ProblemSpec) -> int | None:
    """The submission's seed: on its first judging, one whose reference answers the judge
    already has, if it has one (runner.seedstock), in place of the seed drawn with the row.
    Nothing was judged with that one yet, and the new one is stored before judging, so a
    retry or a rejudge still judges the inputs this judging does."""
    if claim.attempt != 1 or claim.hidden_seed is None:  # judged before, or an old row
        return claim.hidden_seed
    ready = ctx.judge.ready_seed(problem)
    if ready is None:
        return claim.hidden_seed
    with transaction(ctx.sessions) as db:
        if _set_held(db, claim, hidden_seed=ready) == 1:
            return ready
    return claim.hidden_seed  # the claim was lost: its judging will not be stored anyway


def judge_seed_for(
    secret: int, problem: ProblemSpec, submission_id: int, attempt: int, *, stored: int | None
) -> int:
    """The seed of a submission's generated hidden cases: the one stored with its row.

    A hidden case's verdict and coarse time are shown, and a submission that knows its
    inputs chooses them, so over many submissions they could spell out inputs that recur:
    then answers could be hard-coded, or a speed problem's score forged (a table of answers
    is faster than any decoding). So each submission gets a seed of its own, drawn when the
    row is created (web.store.models.draw_hidden_seed): what one learns is of no use to the next,
    and a rejudge or a retry reproduces its cases exactly.

    A row from before that (`stored` None) keeps the seed it was judged with, so that its
    rejudge does not change: the server's `secret`, or for a speed problem one derived from
    it per judged attempt."""
    if stored is not None:
        return stored
    if problem.speed is None:
        return secret
    digest = hashlib.blake2b(f"{secret}/{submission_id}/{attempt}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 1


def _store(ctx: JobContext, claim: Claim, outcome: core_seam.JudgedRun) -> None:
    """The verdict, its judging record and the standings, in one transaction, only while
    this claim still holds the row."""
    now = utcnow()
    with transaction(ctx.sessions) as db:
        stored = _set_held(
            db,
            claim,
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
            device_class=outcome.device_class,
            judged_at=now,
            lease_until=None,
            **NO_PROGRESS,
        )
        if stored != 1:
            # Another claim holds the row now (this one's lease ran out, or a rejudge reset
            # it): that claim stores the verdict.
            log.warning("submission %s: attempt %s lost its claim", *_ids(claim))
            return
        db.execute(
            insert(Judging).values(
                submission_id=claim.submission_id,
                attempt=claim.attempt,
                verdict=outcome.verdict,
                points=outcome.points,
                problem_version=outcome.version or None,
                worker=ctx.worker,
                judged_at=now,
            )
        )
        user_id, slug = db.execute(
            select(Submission.user_id, Submission.problem_slug).where(
                Submission.id == claim.submission_id
            )
        ).one()
        standings.refresh(db, user_id, slug)


def _tried(claim: Claim) -> tuple[int, int]:
    return claim.submission_id, claim.tries


def _ids(claim: Claim) -> tuple[int, int]:
    return claim.submission_id, claim.attempt


def _write_held(claim: Claim, db: Session, values: dict[str, Any]) -> int:
    return _set_held(db, claim, **values)


def _set_held(db: Session, claim: Claim, **values: Any) -> int:
    """Update the row only while `claim` holds it: running, under this claim's attempt."""
    return changed(
        db,
        update(Submission)
        .where(
            Submission.id == claim.submission_id,
            Submission.status == RUNNING,
            Submission.attempts == claim.attempt,
        )
        .values(**values),
    )


def recover(sessions: sessionmaker[Session]) -> list[int]:
    """After a restart of the one embedded server: rows left 'running' go back to 'queued';
    returns every queued id. (Workers of a Celery deployment rely on leases instead: a
    starting server process must not take rows that live workers hold.)"""
    with transaction(sessions) as db:
        db.execute(
            update(Submission)
            .where(Submission.status == RUNNING)
            .values(status=QUEUED, lease_until=None, queued_at=utcnow())
        )
        ids = db.scalars(
            select(Submission.id).where(Submission.status == QUEUED).order_by(Submission.id)
        ).all()
    return list(ids)
