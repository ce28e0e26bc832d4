"""index tie-breakers for the speed board and a user history

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 13:18:31.860806
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_problem_results_speed"))
        batch_op.create_index(
            "ix_problem_results_speed",
            ["problem_slug", sa.literal_column("best_metric DESC"), "best_metric_submission_id"],
            unique=False,
        )

    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index("ix_submissions_user", ["user_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_user")

    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.drop_index("ix_problem_results_speed")
        batch_op.create_index(
            "ix_problem_results_speed",
            ["problem_slug", sa.literal_column("best_metric DESC")],
            unique=False,
        )
