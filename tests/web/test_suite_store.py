"""The web suite runs on the store it is asked for (issue 22, section 1: the whole suite
on PostgreSQL as well as SQLite, `make test-postgres`), each test on a fresh database."""

from __future__ import annotations

import time

import pytest
from flask.testing import FlaskClient
from psycopg import connect
from sqlalchemy import text
from suite_store import STORE_ENV, PostgresClones, chosen
from web_helpers import make_user

from devtools.local_services import PostgresServer
from web.config import WebConfig
from web.store.db import make_engine


def test_the_web_fixtures_run_on_the_store_the_suite_was_asked_for(
    config: WebConfig, client: FlaskClient
) -> None:
    """Regression: every web fixture copied a SQLite file, so PostgreSQL-only failures (ids
    past 2^31 in 4-byte columns, NUL in text) never met the suite."""
    scheme = {"sqlite": "sqlite:", "postgresql": "postgresql:"}[chosen()]
    assert config.database_url.startswith(scheme)
    make_user(client, "ada")  # the app the fixtures build stores and reads there
    assert client.get("/api/users/ada").status_code == 200


def test_an_unknown_store_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STORE_ENV, "mysql")
    with pytest.raises(ValueError, match="JUDGE_TEST_STORE must be one of sqlite, postgresql"):
        chosen()


def databases(server: PostgresServer) -> set[str]:
    with connect(server.admin_url, autocommit=True) as admin:
        return {row[0] for row in admin.execute("SELECT datname FROM pg_database")}


def dropped_within(seconds: float, clones: PostgresClones, names: set[str]) -> bool:
    """Whether `drop_unused` drops `names` within `seconds`: a server process leaves
    pg_stat_activity a moment after its client closed the connection (longer on a loaded
    machine; CI once saw the first call find a disposed engine's backend still there)."""
    deadline = time.monotonic() + seconds
    while True:
        clones.drop_unused()
        if not names & databases(clones.server):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_postgresql_clones_start_migrated_and_are_dropped_once_unused(
    postgres_server: PostgresServer,
) -> None:
    clones = PostgresClones(postgres_server, prefix="judge_clone_test")
    first, kept = clones.create(), clones.create()
    engine = make_engine(first)
    try:
        with engine.connect() as connection:  # the template's migrated schema, empty
            assert connection.execute(text("SELECT count(*) FROM users")).scalar() == 0
        holder = make_engine(kept)
        with holder.connect():
            clones.drop_unused()  # `kept` is in use (a module-scoped app's, say): it waits
            assert "judge_clone_test_2" in databases(postgres_server)
        holder.dispose()
        engine.dispose()
        assert dropped_within(10.0, clones, {"judge_clone_test_1", "judge_clone_test_2"})
    finally:
        engine.dispose()
        clones.drop_all()
    assert not {n for n in databases(postgres_server) if n.startswith("judge_clone_test")}
