"""leases, fencing and the judgings history

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 12:00:00.000000

Several judging workers (Celery, issue 13) may hold a submission: a claim now carries a
lease (`lease_until`, `claimed_by`), renewed while the job runs, and `attempts` becomes
the fencing token (never reset; `tries` counts the claims since the row was last queued
by a person). `queued_at` lets the sweeper find rows whose message was lost; progress
columns carry "case n of m" to the learner's page. `judgings` keeps one row per stored
(submission, attempt). New nullable columns and one new table: no table rebuild. Rows
from before get `queued_at` = `created_at` and one judging per judged submission.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "submissions", sa.Column("tries", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("submissions", sa.Column("queued_at", sa.DateTime(), nullable=True))
    op.add_column("submissions", sa.Column("lease_until", sa.DateTime(), nullable=True))
    op.add_column("submissions", sa.Column("claimed_by", sa.String(128), nullable=True))
    op.add_column("submissions", sa.Column("progress_done", sa.Integer(), nullable=True))
    op.add_column("submissions", sa.Column("progress_total", sa.Integer(), nullable=True))
    op.execute("UPDATE submissions SET queued_at = created_at")
    op.create_table(
        "judgings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("problem_version", sa.String(64), nullable=True),
        sa.Column("worker", sa.String(128), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("submission_id", "attempt", name="uq_judgings_attempt"),
    )
    op.create_index("ix_judgings_submission_id", "judgings", ["submission_id"])
    op.execute(
        "INSERT INTO judgings (submission_id, attempt, verdict, points, problem_version,"
        " judged_at) SELECT id, attempts, verdict, points, problem_version,"
        " COALESCE(judged_at, created_at) FROM submissions"
        " WHERE status = 'done' AND verdict IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_index("ix_judgings_submission_id", table_name="judgings")
    op.drop_table("judgings")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("progress_total")
        batch_op.drop_column("progress_done")
        batch_op.drop_column("claimed_by")
        batch_op.drop_column("lease_until")
        batch_op.drop_column("queued_at")
        batch_op.drop_column("tries")
