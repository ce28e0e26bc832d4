"""speed quartiles and unit on submissions

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 09:00:00.000000

A speed problem's accepted run stores its score's interquartile range (`metric_q1`,
`metric_q3`; `metric_spread` keeps the IQR) and its unit. New nullable columns only:
ALTER TABLE ADD COLUMN, no table rebuild, so nothing that hangs off `submissions` is
touched. Rows from before have no quartiles; the speed board reads a missing range as
the score alone.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("metric_q1", sa.Float(), nullable=True))
    op.add_column("submissions", sa.Column("metric_q3", sa.Float(), nullable=True))
    op.add_column("submissions", sa.Column("metric_unit", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("metric_unit")
        batch_op.drop_column("metric_q3")
        batch_op.drop_column("metric_q1")
