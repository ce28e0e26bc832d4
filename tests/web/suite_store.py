"""The store the web suite runs on: SQLite (a copy of the migrated template per test) by
default, PostgreSQL 15 with JUDGE_TEST_STORE=postgresql (`make test-postgres`).

On PostgreSQL every config `make_config` builds from the session's template gets a
database of its own, cloned from one migrated template database on the session's server
(tests/services.py: a throwaway cluster, fsync off), and recycled after the test: renamed
and emptied for a later one (PostgresClones says why). A test
that builds its own database URL (an old SQLite file to upgrade, SQLite's query plans, an
instance folder of `judge serve`) keeps it."""

from __future__ import annotations

import gc
import itertools
import os
import shutil
from pathlib import Path

import psycopg
from psycopg import connect, sql
from psycopg.rows import TupleRow

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
    """Databases cloned from one migrated template, and recycled.

    CREATE DATABASE ... TEMPLATE copies the template's files far faster than the
    migrations run, but it forces a checkpoint: 0.25 s a test on the dev machine, most of
    a PostgreSQL web test. So a clone no one is connected to any more is recycled instead
    of dropped: renamed (an app a test left behind, still holding the old name, can never
    reach the next test's rows), checked to hold the template's schema still, and emptied
    (TRUNCATE ... RESTART IDENTITY, so ids start at 1 as in a new clone). A clone whose
    schema a test changed is dropped; one still in use (an app a module- or session-scoped
    fixture keeps for later tests) waits for a later call or `drop_all`."""

    def __init__(self, server: PostgresServer, prefix: str = "judge_suite") -> None:
        self.server = server
        self.prefix = prefix
        self.template = f"{prefix}_template"
        self.created: list[str] = []  # handed to a test, not yet recycled
        self.free: list[str] = []  # emptied, for the next test
        self.kept: list[str] = []  # a session's, dropped at the end
        self._names = itertools.count(1)
        server.drop_database(self.template)
        migrate.upgrade(server.create_database(self.template))  # disposes its engine
        with connect(server.url_for(self.template), autocommit=True) as template:
            self._schema = _schema_of(template)
            self._tables = [
                row[0]
                for row in template.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                    " AND tablename <> 'alembic_version' ORDER BY tablename"
                )
            ]

    def create(self, *, for_session: bool = False) -> str:
        """A database with the template's schema and no rows: a recycled one if there is
        one, else a new clone. Recycled after the test once unused, or, `for_session`,
        dropped at the end."""
        if self.free and not for_session:
            name = self.free.pop()
        else:
            name = self._new_name()
            with connect(self.server.admin_url, autocommit=True) as admin:
                admin.execute(
                    # FILE_COPY: a copy of the template's few files; PostgreSQL 15's default
                    # (WAL_LOG) logs every block of it, slower still.
                    sql.SQL("CREATE DATABASE {} TEMPLATE {} OWNER {} STRATEGY FILE_COPY").format(
                        sql.Identifier(name), sql.Identifier(self.template), sql.Identifier(PG_ROLE)
                    )
                )
        (self.kept if for_session else self.created).append(name)
        return self.server.url_for(name)

    def recycle_unused(self) -> None:
        """Recycle the clones nobody is connected to (a plain DROP or RENAME would wait 5 s
        on a database in use before it fails)."""
        if not self.created:
            return
        with connect(self.server.admin_url, autocommit=True) as admin:
            for name in [n for n in self.created if n not in self.busy(admin)]:
                self.created.remove(name)
                renamed = self._new_name()
                try:
                    admin.execute(
                        sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                            sql.Identifier(name), sql.Identifier(renamed)
                        )
                    )
                except psycopg.errors.ObjectInUse:  # connected to since `busy` looked
                    self.created.append(name)
                    continue
                if self._empty(renamed):
                    self.free.append(renamed)
                else:
                    admin.execute(
                        sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(renamed))
                    )

    def in_use(self) -> bool:
        """Whether anyone is connected to a handed-out clone."""
        if not self.created:
            return False
        with connect(self.server.admin_url, autocommit=True) as admin:
            return bool(self.busy(admin))

    def busy(self, admin: psycopg.Connection[TupleRow]) -> set[str]:
        """The handed-out clones someone is connected to."""
        return {
            row[0]
            for row in admin.execute(
                "SELECT DISTINCT datname FROM pg_stat_activity WHERE datname = ANY(%s)",
                [self.created],
            )
        }

    def drop_all(self) -> None:
        for names in (self.created, self.free, self.kept):
            while names:
                self.server.drop_database(names.pop())  # WITH (FORCE)
        self.server.drop_database(self.template)

    def _new_name(self) -> str:
        return f"{self.prefix}_{next(self._names)}"

    def _empty(self, name: str) -> bool:
        """Empty `name` if it still has the template's schema; whether it did."""
        with connect(self.server.url_for(name), autocommit=True) as clone:
            if _schema_of(clone) != self._schema:
                return False
            clone.execute(
                sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
                    sql.SQL(", ").join(sql.Identifier(t) for t in self._tables)
                )
            )
        return True


def _schema_of(connection: psycopg.Connection[TupleRow]) -> tuple[object, ...]:
    """The migration's version and every column, index and constraint of the public schema."""
    row = connection.execute(
        """
        SELECT (SELECT string_agg(version_num, ',') FROM alembic_version),
               (SELECT string_agg(table_name || '.' || column_name || ':' || data_type || ':'
                                  || is_nullable || ':' || coalesce(column_default, ''),
                                  ',' ORDER BY table_name, column_name)
                  FROM information_schema.columns WHERE table_schema = 'public'),
               (SELECT string_agg(indexdef, ',' ORDER BY indexdef)
                  FROM pg_indexes WHERE schemaname = 'public'),
               (SELECT string_agg(conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conname)
                  FROM pg_constraint WHERE connamespace = 'public'::regnamespace)
        """
    ).fetchone()
    return tuple(row or ())


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
            if self.postgres.in_use():
                # An app the test left open holds connections: collected now, psycopg's
                # "deleted while still open" warning fails this test, not whichever test the
                # garbage collector happens to run in (sqlite3 connections do not warn).
                # Only then: a full collection costs 70 ms, and most tests close their apps.
                gc.collect()
            self.postgres.recycle_unused()

    def after_session(self) -> None:
        if self.postgres is not None:
            self.postgres.drop_all()
            self.postgres = None


STORE = SuiteStore()
