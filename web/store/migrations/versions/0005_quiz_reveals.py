"""quiz reveals: which questions a learner gave up on (and saw explained)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 08:00:00.000000

A new table only; nothing existing changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quiz_reveals",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("problem_slug", sa.String(64), nullable=False),
        sa.Column("question_id", sa.String(64), nullable=False),
        sa.Column("revealed_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("user_id", "problem_slug", "question_id", name="uq_quiz_reveals"),
    )


def downgrade() -> None:
    op.drop_table("quiz_reveals")
