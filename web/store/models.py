"""The stored records: users, API tokens, submissions, hidden-problem flags, standings."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from judge.problem.cases import PUBLIC_SEED
from judge.verdict import Verdict
from web.store.db import EnumText, utcnow
from web.store.status import RunStatus, SubmissionStatus

__all__ = [
    "ApiToken",
    "Base",
    "Draft",
    "JudgeWorker",
    "Judging",
    "ProblemFlag",
    "ProblemResult",
    "PublicRun",
    "QuizReveal",
    "Standing",
    "Submission",
    "SubmissionStatus",
    "User",
]


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The spelling the user chose, shown on pages; `username_key` decides sameness.
    username: Mapped[str] = mapped_column(String(32), unique=True)
    # NFKC then casefold (web.accounts.auth.username_key): "Alice" and "alice" are one name.
    username_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # Copied into the session cookie at log-in and checked on every request; log-out and
    # a password change bump it, which ends every session of the user at once.
    session_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ApiToken(Base):
    """A bearer token for programs; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    label: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    # Updated at most once a minute (web.accounts.auth.LAST_USED_EVERY), not on every request.
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime)


def draw_hidden_seed() -> int:
    """A fresh secret seed for one submission's generated hidden cases: 63 random bits (a
    signed BIGINT holds them), never the public seed (its cases would be public)."""
    while True:
        seed = secrets.randbits(63)
        if seed != PUBLIC_SEED:
            return seed


class Submission(Base):
    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem_slug: Mapped[str] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[SubmissionStatus] = mapped_column(
        EnumText(SubmissionStatus, 16), default=SubmissionStatus.QUEUED
    )
    # The seed of this submission's generated hidden cases, drawn when the row is created
    # (or, at its first judging, replaced by one the judge made ready: web.judging.jobs) and
    # kept: a rejudge or a retry judges the same inputs, and what one submission learns
    # of its hidden inputs is of no use to the next. Never shown to anyone (reports say
    # "secret"). NULL on rows from before migration 0011: judged as they were (web.judging.jobs).
    hidden_seed: Mapped[int | None] = mapped_column(BigInteger, default=draw_hidden_seed)
    # Filled when judged: the problem version the verdict is for, and the verdict.
    problem_version: Mapped[str | None] = mapped_column(String(64))
    verdict: Mapped[Verdict | None] = mapped_column(EnumText(Verdict, 8))
    points: Mapped[int] = mapped_column(Integer, default=0)
    passed: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    time_ms: Mapped[float | None] = mapped_column(Float)
    report_json: Mapped[str | None] = mapped_column(Text)
    # Speed problems' accepted runs: the score (the median rate), its interquartile range
    # (q1, q3; spread = q3 - q1), its unit and the hardware that measured it.
    metric: Mapped[float | None] = mapped_column(Float)
    metric_spread: Mapped[float | None] = mapped_column(Float)
    metric_q1: Mapped[float | None] = mapped_column(Float)
    metric_q3: Mapped[float | None] = mapped_column(Float)
    metric_unit: Mapped[str | None] = mapped_column(String(32))
    hardware: Mapped[str | None] = mapped_column(String(200))
    # The board a speed ranks on: "cpu" or "gpu:<model>" (web/boards/device_class.py).
    device_class: Mapped[str] = mapped_column(String(120), default="cpu", server_default="cpu")
    # Every claim of the row by a judging worker, ever (never reset, a rejudge included):
    # the fencing token. A worker stores its verdict only while the row still carries the
    # number its claim set, so a worker that lost its claim (it hung past its lease and
    # another worker took over) can never overwrite the verdict of the one that won.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Claims since the row was last queued by a person (submitted, or rejudged): bounds the
    # retries of a judge that keeps failing (web.judging.jobs).
    tries: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # When the row last became queued: the sweeper sends a row queued for too long again.
    queued_at: Mapped[datetime | None] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    # A running row's claim: held by `claimed_by` until `lease_until`, renewed while it runs.
    lease_until: Mapped[datetime | None] = mapped_column(DateTime)
    claimed_by: Mapped[str | None] = mapped_column(String(128))
    # Cases judged so far of all, while running (written with the lease, about once a second).
    progress_done: Mapped[int | None] = mapped_column(Integer)
    progress_total: Mapped[int | None] = mapped_column(Integer)
    # ... and what runs now: judge.run.phase.Stage's value, and its `step` of `of`
    # ("timed", 4, 9: timed repetition 4 of 9).
    progress_stage: Mapped[str | None] = mapped_column(String(16))
    progress_step: Mapped[int | None] = mapped_column(Integer)
    progress_of: Mapped[int | None] = mapped_column(Integer)
    judged_at: Mapped[datetime | None] = mapped_column(DateTime)

    __table_args__ = (
        Index("ix_submissions_user_problem", "user_id", "problem_slug", "id"),
        Index("ix_submissions_user", "user_id", "id"),
        Index("ix_submissions_problem", "problem_slug", "id"),
        Index("ix_submissions_status", "status", "id"),
        Index("ix_submissions_speed", "problem_slug", "verdict", "metric"),
    )


class Judging(Base):
    """One stored verdict of one attempt of a submission. The row's current verdict is the
    latest; a rejudge adds a new attempt and keeps the old ones. Unique per (submission,
    attempt): a task delivered twice, or a worker that lost its claim, cannot store twice."""

    __tablename__ = "judgings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    attempt: Mapped[int] = mapped_column(Integer)
    verdict: Mapped[Verdict] = mapped_column(EnumText(Verdict, 8))
    points: Mapped[int] = mapped_column(Integer, default=0)
    problem_version: Mapped[str | None] = mapped_column(String(64))
    worker: Mapped[str | None] = mapped_column(String(128))
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (UniqueConstraint("submission_id", "attempt", name="uq_judgings_attempt"),)


class PublicRun(Base):
    """A Run on the server (torch tier): practice feedback on the public cases, never a
    submission and never on a board. Kept in the database only so that every server process
    and worker sees it: one per user (a new run replaces the old), forgotten after a while."""

    __tablename__ = "public_runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # unguessable
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    problem_slug: Mapped[str] = mapped_column(String(64))
    # None only for a browser-tier input tried on the reference alone (the learner's code
    # then runs in their browser).
    code: Mapped[str | None] = mapped_column(Text)
    # A learner's own arguments, as the JSON text they typed ("Try your own input"); None
    # for a Run of the public cases.
    input_json: Mapped[str | None] = mapped_column(Text)
    status: Mapped[RunStatus] = mapped_column(EnumText(RunStatus, 16), default=RunStatus.RUNNING)
    # The learner's view, once done: a report, or for an input what judge.run.custom_run gave.
    report_json: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # Past this a running run is given up as lost (its worker died): it stops holding a slot.
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    claimed_by: Mapped[str | None] = mapped_column(String(128))
    # Where its judging has got to (judge.run.phase.Phase.to_dict, as JSON), written with
    # each renewal of its worker's lease; None until a worker took it.
    progress_json: Mapped[str | None] = mapped_column(Text)


class JudgeWorker(Base):
    """A `judge worker` process as it described itself at start (hardware, protections),
    with the last time its sweeper ran: what an administrator sees of the judging fleet."""

    __tablename__ = "judge_workers"

    name: Mapped[str] = mapped_column(String(128), primary_key=True)
    queues: Mapped[str] = mapped_column(String(32))
    cpu: Mapped[str] = mapped_column(String(200))
    cpus: Mapped[int] = mapped_column(Integer)
    gpus: Mapped[str] = mapped_column(Text)  # device nodes, comma-separated; empty: none
    protections: Mapped[str] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime)
    heartbeat_s: Mapped[float] = mapped_column(Float)  # how often last_seen_at is renewed
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime)


class ProblemFlag(Base):
    """Admin state per problem slug; the problem itself lives in problems/<slug>/."""

    __tablename__ = "problem_flags"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ProblemResult(Base):
    """One user's best on one problem, recomputed from submissions whenever a verdict lands."""

    __tablename__ = "problem_results"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    problem_slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    best_points: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[bool] = mapped_column(Boolean, default=False)
    # Rejected (not AC, not CE) submissions before the first AC; the penalty on solving.
    wrong_before_ac: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    improved_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Speed problems: the fastest accepted run, so the speed board is an index walk too.
    best_metric: Mapped[float | None] = mapped_column(Float)
    best_metric_submission_id: Mapped[int | None] = mapped_column(Integer)


class SpeedBest(Base):
    """One user's fastest accepted run on one problem on one device class: a speed board
    per device class is an index walk, and a CPU score never ranks beside a GPU score."""

    __tablename__ = "speed_bests"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    problem_slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    device_class: Mapped[str] = mapped_column(String(120), primary_key=True)
    best_metric: Mapped[float] = mapped_column(Float)
    submission_id: Mapped[int] = mapped_column(Integer)


class Standing(Base):
    """One row per user on the board; the leaderboard is one indexed ORDER BY over it."""

    __tablename__ = "standings"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    points: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    penalty: Mapped[int] = mapped_column(Integer, default=0)
    last_improved_at: Mapped[datetime] = mapped_column(DateTime)


# Each board's exact order, so every board is an index walk (directions must match).
Index(
    "ix_problem_results_board",
    ProblemResult.problem_slug,
    ProblemResult.best_points.desc(),
    ProblemResult.wrong_before_ac,
    ProblemResult.improved_at,
    ProblemResult.user_id,
)
Index(
    "ix_problem_results_speed",
    ProblemResult.problem_slug,
    ProblemResult.best_metric.desc(),
    ProblemResult.best_metric_submission_id,
)
Index(
    "ix_speed_bests_board",
    SpeedBest.problem_slug,
    SpeedBest.device_class,
    SpeedBest.best_metric.desc(),
    SpeedBest.submission_id,
)
Index(
    "ix_standings_rank",
    Standing.points.desc(),
    Standing.solved.desc(),
    Standing.penalty,
    Standing.last_improved_at,
    Standing.user_id,
)


class QuizReveal(Base):
    """A quiz question a learner gave up on and saw explained: from then on their
    submissions to that quiz still get verdicts but no points (web.boards.standings)."""

    __tablename__ = "quiz_reveals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem_slug: Mapped[str] = mapped_column(String(64))
    question_id: Mapped[str] = mapped_column(String(64))
    revealed_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (
        UniqueConstraint("user_id", "problem_slug", "question_id", name="uq_quiz_reveals"),
    )


class Draft(Base):
    """The code a logged-in learner last had in a problem's editor, saved as they type, so
    it follows them to another browser; one row per user and problem."""

    __tablename__ = "drafts"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    problem_slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    code: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
