"""what a judging runs now

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 15:00:00.000000

A running submission said only how many of its cases had run; a torch-tier judging spends
seconds preparing its cases, measuring the reference, or in timed repetitions, and "12 of
46" did not say which. Three nullable columns beside the count (judge.run.phase):
ALTER TABLE ADD COLUMN only, no rebuild.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

COLUMNS = ("progress_stage", "progress_step", "progress_of")


def upgrade() -> None:
    op.add_column("submissions", sa.Column("progress_stage", sa.String(16), nullable=True))
    op.add_column("submissions", sa.Column("progress_step", sa.Integer(), nullable=True))
    op.add_column("submissions", sa.Column("progress_of", sa.Integer(), nullable=True))


def downgrade() -> None:
    # Not a batch rebuild: on SQLite that drops and recreates `submissions`, and with foreign
    # keys on, the drop deletes every judging that cascades from it (see 0004).
    for column in COLUMNS:
        op.execute(f"ALTER TABLE submissions DROP COLUMN {column}")
