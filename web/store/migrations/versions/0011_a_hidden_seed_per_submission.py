"""a hidden seed per submission

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-10 09:00:00.000000

Each submission's generated hidden cases come from a secret seed of its own, drawn when the
row is created and kept with it, so a rejudge or a retry after a crash judges the same
inputs again; one secret seed shared by every submission let what one learned of the hidden
inputs serve the next. A new nullable column only (ALTER TABLE ADD COLUMN, no table
rebuild): rows from before keep NULL, and the worker judges them with the seed they had
(web.judging.jobs.judge_seed_for), so their rejudges do not change.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("hidden_seed", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    # Not a batch rebuild: on SQLite that drops and recreates `submissions`, and with foreign
    # keys on, the drop deletes every judging that cascades from it (see 0004).
    op.execute("ALTER TABLE submissions DROP COLUMN hidden_seed")
