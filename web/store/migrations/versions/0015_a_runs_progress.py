"""a run's progress

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 23:00:00.000000

A Run on the server shows where its judging has got to, as a submission does (issue 37):
the worker judging it writes the phase (stage, cases done of all, step of its stage) with
each renewal of its lease, as JSON; null until a worker has taken it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("public_runs", sa.Column("progress_json", sa.Text(), nullable=True))


def downgrade() -> None:
    # Not a batch rebuild (see 0014): a plain drop, which SQLite has had since 3.35.
    op.execute("ALTER TABLE public_runs DROP COLUMN progress_json")
