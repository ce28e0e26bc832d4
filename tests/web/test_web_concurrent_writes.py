"""The same state-changing request many times at once (two devices saving a first draft, a
double-clicked give-up, a form sent twice): one effect, and every answer a 2xx or a clear
4xx, never HTTP 500, on SQLite and on PostgreSQL (issue 36, section 4: read-then-insert
races gave 10 and 27 x 500 on drafts, 13 and 96 x 500 on give-ups).

Every route that changes state is in REQUESTS below (a new one without a row fails
`test_every_state_changing_route_is_raced_here`); each is sent N times at once, from N
clients already logged in, released together by a barrier, into the app's own threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, write_web_problem
from quiz_factory import write_quiz
from sqlalchemy import func, select
from web_helpers import PASSWORD, STORES, csrf_of, make_user, page_login, state, store_config

from web import create_app
from web.config import RateLimit
from web.store.db import transaction
from web.store.models import Draft, QuizReveal, User

N = 8
LOTS = RateLimit(10**9, 60.0)
LIMITS = (
    "submit_per_user",
    "submit_per_ip",
    "register_per_ip",
    "login_per_user",
    "login_per_ip",
    "run_per_user",
    "run_per_ip",
)


@pytest.fixture(scope="module", params=STORES)
def crowd(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    db_template: Path,
) -> Iterator[Flask]:
    problems = tmp_path_factory.mktemp("problems")
    write_web_problem(problems, "add-two")
    write_web_problem(problems, "add-torch", order=2, tier="torch")  # Run on the server
    write_quiz(problems)
    with store_config(
        request,
        request.param,
        tmp_path_factory.mktemp("crowd"),
        db_template,
        problems,
        start_workers=False,  # submissions and runs stay queued: only the writes race
        run_slots=64,  # each race's runs stay running: room for every race's first one
        **{f: LOTS for f in LIMITS},
    ) as config:
        app = create_app(config)
        app.testing = True
        make_user(app.test_client(), "root", admin=True)
        try:
            yield app
        finally:
            state(app).close()


@dataclass(frozen=True)
class Race:
    """One request to send N times at once: `send(client, who)`; `page` logs each client in
    through the login form first (a cookie session and its CSRF token), else the API with
    the account's token; `admin` races as the admin."""

    send: Callable[[FlaskClient, Any], Any]
    page: bool = False
    admin: bool = False


def _form(client: FlaskClient, path: str, **fields: str) -> Any:
    return client.post(path, data={**fields, "csrf_token": csrf_of(client)})


REQUESTS: dict[tuple[str, str], Race] = {
    ("PUT", "/api/problems/<slug>/draft"): Race(
        lambda c, who: c.put("/api/problems/add-two/draft", json={"code": GOOD}, headers=who.auth)
    ),
    ("POST", "/api/problems/<slug>/questions/<question_id>/reveal"): Race(
        lambda c, who: c.post("/api/problems/quiz/questions/sum/reveal", headers=who.auth)
    ),
    ("POST", "/problems/<slug>/questions/<question_id>/reveal"): Race(
        lambda c, who: _form(c, "/problems/quiz/questions/pick/reveal"), page=True
    ),
    ("POST", "/api/submissions"): Race(
        lambda c, who: c.post(
            "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=who.auth
        )
    ),
    ("POST", "/problems/<slug>/submit"): Race(
        lambda c, who: _form(c, "/problems/add-two/submit", code=GOOD + "\n# form\n"),
        page=True,
    ),
    ("POST", "/problems/<slug>/run"): Race(
        lambda c, who: _form(c, "/problems/quiz/run", code='{"sum": 3}'), page=True
    ),
    ("POST", "/api/problems/<slug>/run"): Race(
        lambda c, who: c.post("/api/problems/add-torch/run", json={"code": GOOD}, headers=who.auth)
    ),
    ("POST", "/api/problems/<slug>/try-input"): Race(
        lambda c, who: c.post(
            "/api/problems/add-two/try-input",
            json={"input": '{"a": 1, "b": 2}'},
            headers=who.auth,
        )
    ),
    ("POST", "/api/register"): Race(
        lambda c, who: c.post(
            "/api/register", json={"username": who.username + "-twin", "password": PASSWORD}
        )
    ),
    ("POST", "/register"): Race(
        lambda c, who: _form(c, "/register", username=who.username + "-page", password=PASSWORD),
        page=True,
    ),
    ("POST", "/api/token"): Race(
        lambda c, who: c.post("/api/token", json={"username": who.username, "password": PASSWORD})
    ),
    ("DELETE", "/api/token"): Race(lambda c, who: c.delete("/api/token", headers=who.auth)),
    ("DELETE", "/api/tokens/<int:token_id>"): Race(
        lambda c, who: c.delete(f"/api/tokens/{who.token_id}", headers=who.auth)
    ),
    ("POST", "/api/password"): Race(
        lambda c, who: c.post(
            "/api/password",
            json={"current_password": PASSWORD, "new_password": PASSWORD + "!"},
            headers=who.auth,
        )
    ),
    ("POST", "/account/password"): Race(
        lambda c, who: _form(
            c, "/account/password", current_password=PASSWORD, new_password=PASSWORD + "?"
        ),
        page=True,
    ),
    ("POST", "/login"): Race(
        lambda c, who: _form(c, "/login", username=who.username, password=PASSWORD), page=True
    ),
    ("POST", "/logout"): Race(lambda c, who: _form(c, "/logout"), page=True),
    ("POST", "/api/admin/problems/<slug>/hidden"): Race(
        lambda c, who: c.post(
            "/api/admin/problems/add-two/hidden", json={"hidden": False}, headers=who.auth
        ),
        admin=True,
    ),
    ("POST", "/admin/problems/<slug>/hidden"): Race(
        lambda c, who: _form(c, "/admin/problems/add-two/hidden", hidden="0"),
        page=True,
        admin=True,
    ),
    ("POST", "/api/admin/problems/<slug>/rejudge"): Race(
        lambda c, who: c.post("/api/admin/problems/add-two/rejudge", json={}, headers=who.auth),
        admin=True,
    ),
    ("POST", "/admin/problems/<slug>/rejudge"): Race(
        lambda c, who: _form(c, "/admin/problems/add-two/rejudge"), page=True, admin=True
    ),
}


@dataclass
class Who:
    username: str
    token: str
    token_id: int

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


_names = iter(range(10**6))


def _account(app: Flask, admin: bool) -> Who:
    """A fresh learner (or the admin) with a token of their own for this race."""
    client = app.test_client()
    if admin:
        username = "root"
    else:
        username = f"crowd{next(_names)}"
        assert make_user(client, username).token
    token = client.post("/api/token", json={"username": username, "password": PASSWORD}).json
    return Who(username, token["token"], int(token.get("id", 0)))


def race(app: Flask, spec: Race) -> list[int]:
    """Send `spec` N times at once; the status codes."""
    who = _account(app, spec.admin)
    clients = [app.test_client() for _ in range(N)]
    if spec.page:
        for client in clients:
            page_login(client, who.username)
    barrier = threading.Barrier(N)

    def one(client: FlaskClient) -> int:
        barrier.wait()
        return int(spec.send(client, who).status_code)

    with ThreadPoolExecutor(N) as pool:
        return list(pool.map(one, clients))


@pytest.mark.parametrize("route", sorted(REQUESTS), ids=lambda r: f"{r[0]} {r[1]}")
def test_the_same_request_at_once_never_fails_the_server(crowd: Flask, route: tuple) -> None:  # type: ignore[type-arg]
    codes = race(crowd, REQUESTS[route])
    assert all(code < 500 for code in codes), codes
    assert any(code < 400 or code in (302, 303) for code in codes), codes  # one got through


def test_two_devices_saving_a_first_draft_at_once_leave_one_draft(crowd: Flask) -> None:
    spec = REQUESTS[("PUT", "/api/problems/<slug>/draft")]
    who = _account(crowd, admin=False)
    barrier = threading.Barrier(N)

    def one(i: int) -> int:
        client = crowd.test_client()
        barrier.wait()
        code = f"def add(a, b):\n    return a + b  # device {i}\n"
        return int(
            client.put(
                "/api/problems/add-two/draft", json={"code": code}, headers=who.auth
            ).status_code
        )

    with ThreadPoolExecutor(N) as pool:
        codes = list(pool.map(one, range(N)))
    assert codes == [200] * N, codes
    assert spec is not None
    with transaction(state(crowd).sessions) as db:
        user = db.scalar(select(User.id).where(User.username == who.username))
        drafts = db.scalars(select(Draft).where(Draft.user_id == user)).all()
    assert len(drafts) == 1 and "device" in drafts[0].code


def test_a_give_up_clicked_many_times_at_once_is_one_give_up(crowd: Flask) -> None:
    who = _account(crowd, admin=False)
    codes = race_as(
        crowd, who, REQUESTS[("POST", "/api/problems/<slug>/questions/<question_id>/reveal")]
    )
    assert codes == [200] * N, codes
    with transaction(state(crowd).sessions) as db:
        user = db.scalar(select(User.id).where(User.username == who.username))
        count = db.scalar(
            select(func.count()).select_from(QuizReveal).where(QuizReveal.user_id == user)
        )
    assert count == 1


def race_as(app: Flask, who: Who, spec: Race) -> list[int]:
    barrier = threading.Barrier(N)

    def one(client: FlaskClient) -> int:
        barrier.wait()
        return int(spec.send(client, who).status_code)

    with ThreadPoolExecutor(N) as pool:
        return list(pool.map(one, [app.test_client() for _ in range(N)]))


def test_every_state_changing_route_is_raced_here(crowd: Flask) -> None:
    routes = {
        (method, rule.rule)
        for rule in crowd.url_map.iter_rules()
        for method in (rule.methods or set()) - {"GET", "HEAD", "OPTIONS"}
    }
    assert routes == set(REQUESTS), routes ^ set(REQUESTS)
