"""Fixtures: a temporary problems folder, a migrated template copied per test (SQLite, or
PostgreSQL with JUDGE_TEST_STORE=postgresql: suite_store.py), and an app with a real
worker pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import write_web_problem
from suite_store import STORE, PostgresClones, chosen
from web_helpers import make_config, state

from devtools.local_services import missing_binaries
from web import create_app
from web.config import WebConfig, sqlite_url
from web.store import migrate


@pytest.fixture(scope="session")
def problems_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("problems")
    write_web_problem(root, "add-two", order=1)
    write_web_problem(root, "add-more", order=2)
    return root


@pytest.fixture(scope="session")
def db_template(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """The session's template: `make_config` copies it per test (or, on PostgreSQL, clones
    a migrated template database there)."""
    path = tmp_path_factory.mktemp("template") / "judge.sqlite3"
    migrate.upgrade(sqlite_url(path))
    STORE.sqlite_template = path
    if chosen() == "postgresql":
        missing = missing_binaries(["postgres"])
        if missing:  # asked for by name: a skip would pass the run on SQLite's word
            pytest.fail(f"JUDGE_TEST_STORE=postgresql, but {', '.join(missing)} is missing")
        STORE.postgres = PostgresClones(request.getfixturevalue("postgres_server"))
    yield path
    STORE.after_session()


@pytest.fixture(autouse=True)
def drop_the_tests_databases() -> Iterator[None]:
    yield
    STORE.after_test()  # after the test's own fixtures (autouse: set up first, torn down last)


@pytest.fixture
def config(tmp_path: Path, db_template: Path, problems_root: Path) -> WebConfig:
    return make_config(tmp_path, db_template, problems_root)


@pytest.fixture
def app(config: WebConfig) -> Iterator[Flask]:
    app = create_app(config)
    app.testing = True
    yield app
    state(app).close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
