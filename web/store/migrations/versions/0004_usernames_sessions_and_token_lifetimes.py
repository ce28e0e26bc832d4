"""normalised usernames, session generations, token labels and lifetimes

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 09:00:00.000000

Only ADD COLUMN, CREATE INDEX and DROP COLUMN: no batch "copy and move". On SQLite a
batch rebuild drops the old `users` table, and with foreign keys on that drop deletes
every row that cascades from it (submissions, results, standings).
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Tokens made before lifetimes existed get the default lifetime from their creation.
TOKEN_LIFETIME = timedelta(days=30)
users = sa.table("users", sa.column("id"), sa.column("username"), sa.column("username_key"))
# Typed, so SQLite's stored text comes back as datetime and goes in as its format.
tokens = sa.table(
    "api_tokens",
    sa.column("id", sa.Integer()),
    sa.column("created_at", sa.DateTime()),
    sa.column("expires_at", sa.DateTime()),
)


def upgrade() -> None:
    # NOT NULL columns added with a placeholder default, filled, then the default dropped
    # where the database can do that in place (SQLite keeps it; every insert sets it).
    op.add_column(
        "users", sa.Column("username_key", sa.String(length=64), server_default="", nullable=False)
    )
    op.add_column(
        "users", sa.Column("session_generation", sa.Integer(), server_default="0", nullable=False)
    )
    _fill_username_keys()
    op.create_index(op.f("ix_users_username_key"), "users", ["username_key"], unique=True)

    op.add_column("api_tokens", sa.Column("label", sa.String(length=64), nullable=True))
    epoch = sa.text("'1970-01-01 00:00:00'")
    op.add_column(
        "api_tokens", sa.Column("expires_at", sa.DateTime(), server_default=epoch, nullable=False)
    )
    op.add_column("api_tokens", sa.Column("last_used_at", sa.DateTime(), nullable=True))
    connection = op.get_bind()
    for token_id, created in connection.execute(sa.select(tokens.c.id, tokens.c.created_at)):
        lifetime = tokens.update().where(tokens.c.id == token_id)
        connection.execute(lifetime.values(expires_at=created + TOKEN_LIFETIME))
    if connection.dialect.name != "sqlite":
        op.alter_column("users", "username_key", server_default=None)
        op.alter_column("api_tokens", "expires_at", server_default=None)


def _fill_username_keys() -> None:
    """Existing names keep working. Where two old names are one name now ("Alice" and
    "alice"), the older account keeps the key and a later one gets "<key>#<id>" (no new
    name can contain "#"): it still logs in with its exact old spelling."""
    connection = op.get_bind()
    taken: set[str] = set()
    rows = connection.execute(sa.select(users.c.id, users.c.username).order_by(users.c.id))
    for user_id, name in rows.all():
        key = unicodedata.normalize("NFKC", name).casefold()
        if key in taken:
            key = f"{key}#{user_id}"
        taken.add(key)
        connection.execute(users.update().where(users.c.id == user_id).values(username_key=key))


def downgrade() -> None:
    for column in ("last_used_at", "expires_at", "label"):
        op.execute(f"ALTER TABLE api_tokens DROP COLUMN {column}")
    op.drop_index(op.f("ix_users_username_key"), table_name="users")
    for column in ("session_generation", "username_key"):
        op.execute(f"ALTER TABLE users DROP COLUMN {column}")
