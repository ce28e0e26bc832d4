"""Fixtures: a temporary problems folder, a migrated SQLite template copied per test,
and an app with a real worker pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_config, state
from web_problem_fixture import write_problem

from web import create_app, migrate
from web.config import WebConfig, sqlite_url


@pytest.fixture(scope="session")
def problems_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("problems")
    write_problem(root, "add-two", order=1)
    write_problem(root, "add-more", order=2)
    return root


@pytest.fixture(scope="session")
def db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "judge.sqlite3"
    migrate.upgrade(sqlite_url(path))
    return path


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
