"""judge workers

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 13:30:00.000000

Each `judge worker` records what it is (queues, CPU, GPUs, the sandbox's protections as
measured at start) and renews `last_seen_at` on every sweep, so an administrator sees which
workers judge and how they are protected. A new table only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_workers",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("queues", sa.String(32), nullable=False),
        sa.Column("cpu", sa.String(200), nullable=False),
        sa.Column("cpus", sa.Integer(), nullable=False),
        sa.Column("gpus", sa.Text(), nullable=False),
        sa.Column("protections", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.Column("heartbeat_s", sa.Float(), nullable=False),
        sa.Column("stopped_at", sa.DateTime(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("judge_workers")
