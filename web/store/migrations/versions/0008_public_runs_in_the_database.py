"""public runs in the database

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 13:00:00.000000

Runs on the server (torch tier) lived in one process's memory: behind several server
processes a run started on one was unknown to the next, and only a process with a sandbox
could judge it. They are now rows every process reads and any worker judges; still never
submissions, one per user, deleted once stale. A new table only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "public_runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("problem_slug", sa.String(64), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("report_json", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("claimed_by", sa.String(128), nullable=True),
    )
    op.create_index("ix_public_runs_user_id", "public_runs", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_public_runs_user_id", table_name="public_runs")
    op.drop_table("public_runs")
