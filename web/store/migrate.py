"""Alembic migrations, run at start-up and in tests (no alembic.ini needed)."""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import make_url

from web.store.db import make_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The PostgreSQL advisory lock every process takes around its upgrade: any fixed 64-bit
# number, the same in every process ("judgemig" in ASCII).
MIGRATION_LOCK = 0x6A756467656D6967

log = logging.getLogger(__name__)


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser treats % as interpolation; URLs with escaped passwords contain it.
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


@contextmanager
def _sqlite_lock(database_url: str) -> Iterator[None]:
    """flock on `<database>.migrate-lock` (nothing to lock for an in-memory database)."""
    path = make_url(database_url).database
    if not path or path == ":memory:":
        yield
        return
    lock_path = Path(path).with_name(Path(path).name + ".migrate-lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # the kernel lets it go if this process dies
        yield
    finally:
        os.close(fd)


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the schema to `revision`.

    On PostgreSQL several processes (`judge serve`, `judge worker`) may start at once
    against one database. Each holds an advisory lock around its upgrade, so one migrates
    while the others wait, then find the schema current; without it two would both create
    alembic_version or run one migration twice, and all but one would fail to start.
    SQLite: a server and `judge worker` processes may share one file on one machine, so
    each holds an exclusive lock on a file beside the database instead."""
    if not database_url.startswith("postgresql"):
        with _sqlite_lock(database_url):
            command.upgrade(alembic_config(database_url), revision)
        return
    engine = make_engine(database_url)
    try:
        # A connection of its own, in autocommit (no transaction left open while it
        # waits), held for the whole upgrade. The lock is the session's: it is let go when
        # the connection closes, so a process that dies mid-upgrade frees it too.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as lock:
            key = {"key": MIGRATION_LOCK}
            if not lock.execute(text("SELECT pg_try_advisory_lock(:key)"), key).scalar():
                log.info("waiting for another process's database migration to finish")
                lock.execute(text("SELECT pg_advisory_lock(:key)"), key)
            try:
                command.upgrade(alembic_config(database_url), revision)
            finally:
                lock.execute(text("SELECT pg_advisory_unlock(:key)"), key)
    finally:
        engine.dispose()
