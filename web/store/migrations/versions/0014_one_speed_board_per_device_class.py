"""one speed board per device class

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 18:00:00.000000

A CPU score must never rank beside a GPU score (issue 21). Each submission stores the
device class its speed was measured on ("cpu" or "gpu:<model>", web/boards/device_class.py;
existing rows are "cpu", except a row whose stored hardware names CUDA), and each user's
fastest accepted run is kept per (problem, device class) in `speed_bests`, whose index is
the board's order. Filled from the stored submissions.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "submissions",
        sa.Column("device_class", sa.String(120), nullable=False, server_default="cpu"),
    )
    _classify_cuda_rows()
    op.create_table(
        "speed_bests",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_slug", sa.String(64), nullable=False),
        sa.Column("device_class", sa.String(120), nullable=False),
        sa.Column("best_metric", sa.Float(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "problem_slug", "device_class"),
    )
    op.create_index(
        "ix_speed_bests_board",
        "speed_bests",
        ["problem_slug", "device_class", sa.literal_column("best_metric DESC"), "submission_id"],
        unique=False,
    )
    # Each user's fastest accepted run per (problem, device class), ties to the earlier run.
    op.execute(
        "INSERT INTO speed_bests (user_id, problem_slug, device_class, best_metric, submission_id)"
        " SELECT s.user_id, s.problem_slug, s.device_class, s.metric, s.id FROM submissions s"
        " WHERE s.status = 'done' AND s.verdict = 'AC' AND s.metric IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM submissions t WHERE t.user_id = s.user_id"
        " AND t.problem_slug = s.problem_slug AND t.device_class = s.device_class"
        " AND t.status = 'done' AND t.verdict = 'AC' AND t.metric IS NOT NULL"
        " AND (t.metric > s.metric OR (t.metric = s.metric AND t.id < s.id)))"
    )


def _classify_cuda_rows() -> None:
    """Rows stored as "cuda (NVIDIA H200)" (the report environment's device) get that GPU's
    class; done in Python, as string functions differ between SQLite and PostgreSQL."""
    connection = op.get_bind()
    rows = connection.execute(
        sa.text("SELECT id, hardware FROM submissions WHERE hardware LIKE 'cuda%'")
    ).all()
    for row_id, hardware in rows:
        model = hardware.partition("(")[2].rstrip(")").strip() or "NVIDIA GPU (model unknown)"
        connection.execute(
            sa.text("UPDATE submissions SET device_class = :c WHERE id = :i"),
            {"c": ("gpu:" + model)[:120], "i": row_id},
        )


def downgrade() -> None:
    op.drop_index("ix_speed_bests_board", table_name="speed_bests")
    op.drop_table("speed_bests")
    # Not a batch rebuild: on SQLite that drops and recreates `submissions`, and with foreign
    # keys on, the drop deletes every judging that cascades from it (see 0004).
    op.execute("ALTER TABLE submissions DROP COLUMN device_class")
