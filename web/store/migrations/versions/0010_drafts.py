"""drafts

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-08 10:00:00.000000

The editor's code per user and problem, saved on the server while a logged-in learner
types, so a draft follows them to another browser. A new table only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drafts",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("problem_slug", sa.String(64), primary_key=True),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("drafts")
