"""The store the web suite runs on: SQLite (a copy of the migrated template per test) by
default, PostgreSQL 15 with JUDGE_TEST_STORE=postgresql (`make test-postgres`).

On PostgreSQL every config `make_config` builds from the session's template gets a
database of its own, cloned from one migrated template database on the session's server
(tests/services.py: a throwaway cluster, fsync off) and dropped after the test. A test
that builds its own database URL (an old SQLite file to upgrade, SQLite's query plans, an
instance folder of `judge serve`) keeps it."""

from __future__ import annotations

import gc
import itertools
import os
import shutil
from pathlib import Path

from psycopg import connect, sql

from devtools.local_services import PG_ROLE, PostgresServer
from web.config import sqlite_url
from web.store import migrate

STORE_ENV = "JUDGE_TEST_STORE"
STORES = ("sqlite", "postgresql")


def chosen() -> str:
    store = os.environ.get(STORE_ENV, "") or "sqlite"
    if store not in STORES:
        raise ValueError(f"{STORE_ENV} must be one of {', '.join(STORES)}, not {store!r}")
    return store


class PostgresClones:
    """Databases cloned from one migrated template (CREATE DATABASE ... TEMPLATE copies
    files: far cheaper than running the migrations for each test)."""

    def __init__(self, server: PostgresServer, prefix: str = "judge_suite") -> None:
        self.server = server
        self.prefix = prefix
        self.template = f"{prefix}_template"
        self.created: list[str] = []
        self.kept: list[str] = []
        self._names = itertools.count(1)
        server.drop_database(self.template)
        migrate.upgrade(server.create_database(self.template))  # disposes its engine

    def create(self, *, for_session: bool = False) -> str:
        """A new clone; dropped after the test once unused, or `for_session` at the end."""
        name = f"{self.prefix}_{next(self._names)}"
        with connect(self.server.admin_url, autocommit=True) as admin:
            admin.execute(
                # FILE_COPY: a copy of the template's few files, 20 ms; PostgreSQL 15's
                # default (WAL_LOG) logs every block of it, 150 ms, once per test.
                sql.SQL("CREATE DATABASE {} TEMPLATE {} OWNER {} STRATEGY FILE_COPY").format(
                    sql.Identifier(name), sql.Identifier(self.template), sql.Identifier(PG_ROLE)
                )
            )
        (self.kept if for_session else self.created).append(name)
        return self.server.url_for(name)

    def drop_unused(self) -> None:
        """Drop the clones nobody is connected to; one still in use (an app a module- or
        session-scoped fixture keeps for later tests) waits for a later call or `drop_all`.
        (A plain DROP DATABASE would wait 5 s on a database in use before it fails.)"""
        if not self.created:
            return
        with connect(self.server.admin_url, autocommit=True) as admin:
            busy = {
                row[0]
                for row in admin.execute(
                    "SELECT DISTINCT datname FROM pg_stat_activity WHERE datname = ANY(%s)",
                    [self.created],
                )
            }
            for name in [n for n in self.created if n not in busy]:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
                self.created.remove(name)

    def drop_all(self) -> None:
        for names in (self.created, self.kept):
            while names:
                self.server.drop_database(names.pop())  # WITH (FORCE)
        self.server.drop_database(self.template)


class SuiteStore:
    """Where `make_config` puts a test's database; `postgres` is set for the session when
    the suite runs on PostgreSQL."""

    def __init__(self) -> None:
        self.sqlite_template: Path | None = None
        self.postgres: PostgresClones | None = None

    def database_url(self, template: Path, sqlite_file: Path) -> str:
        """A fresh database for one test: a PostgreSQL clone when the suite runs there and
        `template` is the session's, else a copy of the SQLite `template`."""
        if self.postgres is not None and template == self.sqlite_template:
            return self.postgres.create()
        shutil.copyfile(template, sqlite_file)
        return sqlite_url(sqlite_file)

    def session_database_url(self, sqlite_file: Path) -> str:
        """An empty database for a server the whole session shares (the e2e pages'):
        a new SQLite file, or a clone kept until the session ends."""
        if self.postgres is not None:
            return self.postgres.create(for_session=True)
        return sqlite_url(sqlite_file)

    def after_test(self) -> None:
        if self.postgres is not None:
            # An app the test left open holds connections: collected now, psycopg's
            # "deleted while still open" warning fails this test, not whichever test the
            # garbage collector happens to run in (sqlite3 connections do not warn).
            gc.collect()
            self.postgres.drop_unused()

    def after_session(self) -> None:
        if self.postgres is not None:
            self.postgres.drop_all()
            self.postgres = None


STORE = SuiteStore()
