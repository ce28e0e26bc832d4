"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 12:41:09.215755
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "problem_flags",
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("slug"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("username"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "problem_results",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_slug", sa.String(length=64), nullable=False),
        sa.Column("best_points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("wrong_before_ac", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("improved_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "problem_slug"),
    )
    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.create_index("ix_problem_results_problem", ["problem_slug"], unique=False)

    op.create_table(
        "standings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("penalty", sa.Integer(), nullable=False),
        sa.Column("last_improved_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )
    with op.batch_alter_table("standings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_standings_rank",
            [
                sa.literal_column("points DESC"),
                sa.literal_column("solved DESC"),
                "penalty",
                "last_improved_at",
                "user_id",
            ],
            unique=False,
        )

    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_slug", sa.String(length=64), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("problem_version", sa.String(length=64), nullable=True),
        sa.Column("verdict", sa.String(length=8), nullable=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("time_ms", sa.Float(), nullable=True),
        sa.Column("report_json", sa.Text(), nullable=True),
        sa.Column("metric", sa.Float(), nullable=True),
        sa.Column("metric_spread", sa.Float(), nullable=True),
        sa.Column("hardware", sa.String(length=200), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index("ix_submissions_problem", ["problem_slug", "id"], unique=False)
        batch_op.create_index(
            "ix_submissions_speed", ["problem_slug", "verdict", "metric"], unique=False
        )
        batch_op.create_index("ix_submissions_status", ["status", "id"], unique=False)
        batch_op.create_index(
            "ix_submissions_user_problem", ["user_id", "problem_slug", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_user_problem")
        batch_op.drop_index("ix_submissions_status")
        batch_op.drop_index("ix_submissions_speed")
        batch_op.drop_index("ix_submissions_problem")

    op.drop_table("submissions")
    with op.batch_alter_table("standings", schema=None) as batch_op:
        batch_op.drop_index("ix_standings_rank")

    op.drop_table("standings")
    with op.batch_alter_table("problem_results", schema=None) as batch_op:
        batch_op.drop_index("ix_problem_results_problem")

    op.drop_table("problem_results")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_tokens_user_id"))

    op.drop_table("api_tokens")
    op.drop_table("users")
    op.drop_table("problem_flags")
