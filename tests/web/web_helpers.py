"""Helpers for the web tests: configs, accounts, submitting and waiting for verdicts."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from suite_store import STORE

from web.config import RateLimit, WebConfig, sqlite_url
from web.state import EXTENSION, PlatformState
from web.store.db import transaction
from web.store.models import User

SECRET_SEED = 918273645546372819
PASSWORD = "correct-horse"


# The suite judges speed problems while its other worker runs beside them on the same two
# cores: paired timings then spread past the judge's own 25% often enough to make a board
# test depend on its neighbour (CI once saw three serve-engine runs at 26-29%). The board's
# plumbing is what those tests check; the limit's rule has tests of its own
# (tests/judge/test_speed_pairing.py), and each board test asserts its run carried this one.
SUITE_SPREAD_LIMIT = 0.6


def make_config(tmp_path: Path, db_template: Path, problems: Path, **changes: Any) -> WebConfig:
    """A test's settings on a fresh database: a copy of `db_template`, or on the suite's
    PostgreSQL a clone of its template (suite_store.py), unless `database_url` is given."""
    database_url = changes.pop("database_url", None)
    if database_url is None:
        database_url = STORE.database_url(db_template, tmp_path / "judge.sqlite3")
    config = WebConfig(
        database_url=database_url,
        problems_dir=problems,
        secret_key="test-secret-key",
        judge_seed=SECRET_SEED,
        workers=2,
        submit_per_user=RateLimit(50, 60.0),
        submit_per_ip=RateLimit(100, 60.0),
        password_method="pbkdf2:sha256:1000",
        retry_delay_s=0.0,
        # Tests are a trusted loopback context; as root the child still runs as judge-sandbox.
        judge_backend="unsafe-local",
        # No seeds prepared in the background: a test's judgings meet no work of the seed
        # stock beside them (tests/runner/test_seedstock.py and test_api.py test it).
        ready_seeds=0,
        speed_spread_limit=SUITE_SPREAD_LIMIT,
    )
    return config.with_(**changes)


# The two stores the platform runs on; a test or fixture parametrized over STORES runs on
# each (PostgreSQL is skipped, saying why, on a machine without its binaries).
STORES = ("sqlite", "postgresql")


@contextmanager
def store_config(
    request: pytest.FixtureRequest,
    store: str,
    folder: Path,
    db_template: Path,
    problems: Path,
    **changes: Any,
) -> Iterator[WebConfig]:
    """make_config on a fresh database of `store`, whichever store the rest of the suite
    runs on: a copy of the migrated SQLite template, or a new database on the session's
    PostgreSQL server (tests/services.py), dropped after."""
    if store == "sqlite":
        copy = folder / "store.sqlite3"
        shutil.copyfile(db_template, copy)
        yield make_config(folder, db_template, problems, database_url=sqlite_url(copy), **changes)
        return
    server = request.getfixturevalue("postgres_server")
    name = f"judge_store_{secrets.token_hex(6)}"
    url = server.create_database(name)
    try:
        yield make_config(folder, db_template, problems, database_url=url, **changes)
    finally:
        server.drop_database(name)


def state(app: Flask) -> PlatformState:
    result: PlatformState = app.extensions[EXTENSION]
    return result


@dataclass(frozen=True)
class Account:
    username: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def make_user(client: FlaskClient, username: str, *, admin: bool = False) -> Account:
    response = client.post("/api/register", json={"username": username, "password": PASSWORD})
    assert response.status_code == 201, response.json
    if admin:
        app_state = state(client.application)
        with transaction(app_state.sessions) as db:
            db.query(User).filter_by(username=username).update({"is_admin": True})
    token = client.post("/api/token", json={"username": username, "password": PASSWORD})
    return Account(username, token.json["token"])


def submit(client: FlaskClient, who: Account, code: str, problem: str = "add-two") -> int:
    response = client.post(
        "/api/submissions", json={"problem": problem, "code": code}, headers=who.auth
    )
    assert response.status_code == 202, response.json
    return int(response.json["id"])


def wait_judged(app: Flask) -> None:
    state(app).queue.join()  # type: ignore[attr-defined]


def csrf_of(client: FlaskClient) -> str:
    return str(client.get("/api/me").json["csrf_token"])


def page_login(client: FlaskClient, username: str) -> None:
    response = client.post(
        "/login",
        data={"username": username, "password": PASSWORD, "csrf_token": csrf_of(client)},
    )
    assert response.status_code == 303, response.data


def timed_repetitions(slug: str = "decode-throughput") -> int:
    """How many timed repetitions a speed problem's cases declare (a scored run has that many).
    The test's own count, not the server's: its public cases come from the suite's answer
    cache (tests/answer_cache.py; drawing them runs the model, 5-7 s)."""
    from answer_cache import built_cases

    from judge.problem.cases import PUBLIC_SEED
    from judge.problem.problemset import ProblemSet

    return sum(1 for c in built_cases(ProblemSet().get(slug), PUBLIC_SEED) if c.timed is not None)
