"""Alembic environment: online migrations over the engine the platform itself uses."""

from __future__ import annotations

from alembic import context

from web.store.db import make_engine
from web.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        # render_as_batch lets ALTER TABLE work on SQLite in later migrations.
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; pass a database URL")
run_migrations_online()
