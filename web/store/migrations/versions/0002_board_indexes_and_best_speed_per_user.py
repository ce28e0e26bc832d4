"""board indexes and best speed per user

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 13:06:16.577554
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("best_metric", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("best_metric_submission_id", sa.Integer(), nullable=True))
        batch_op.drop_index(batch_op.f("ix_problem_results_problem"))
        batch_op.create_index(
            "ix_problem_results_board",
            [
                "problem_slug",
                sa.literal_column("best_points DESC"),
                "wrong_before_ac",
                "improved_at",
                "user_id",
            ],
            unique=False,
        )
        batch_op.create_index(
            "ix_problem_results_speed",
            ["problem_slug", sa.literal_column("best_metric DESC")],
            unique=False,
        )

    # Fill the new columns from the stored submissions (each user's fastest accepted run).
    best = (
        "SELECT {col} FROM submissions s WHERE s.user_id = problem_results.user_id"
        " AND s.problem_slug = problem_results.problem_slug AND s.status = 'done'"
        " AND s.verdict = 'AC' AND s.metric IS NOT NULL ORDER BY s.metric DESC, s.id LIMIT 1"
    )
    op.execute(
        f"UPDATE problem_results SET best_metric = ({best.format(col='s.metric')}),"
        f" best_metric_submission_id = ({best.format(col='s.id')})"
    )


def downgrade() -> None:
    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.drop_index("ix_problem_results_speed")
        batch_op.drop_index("ix_problem_results_board")
        batch_op.create_index(
            batch_op.f("ix_problem_results_problem"), ["problem_slug"], unique=False
        )
        batch_op.drop_column("best_metric_submission_id")
        batch_op.drop_column("best_metric")
