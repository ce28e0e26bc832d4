"""a learner's own input on the server

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 14:00:00.000000

"Try your own input" runs the reference (and, for a torch problem, the learner's code) on
arguments the learner typed, as a public run: the same rows, slots and workers. A run now
carries that input, and a browser-tier input carries no code (the learner's code runs in
their browser). On SQLite the nullable `code` needs a rebuild of `public_runs`; nothing
references that table, so the rebuild cascades nowhere (compare 0004).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("public_runs") as batch:
        batch.add_column(sa.Column("input_json", sa.Text(), nullable=True))
        batch.alter_column("code", existing_type=sa.Text(), nullable=True)


def downgrade() -> None:
    # Runs are practice feedback kept for minutes: those without code are simply dropped.
    op.execute("DELETE FROM public_runs WHERE code IS NULL")
    with op.batch_alter_table("public_runs") as batch:
        batch.alter_column("code", existing_type=sa.Text(), nullable=False)
        batch.drop_column("input_json")
