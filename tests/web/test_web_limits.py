"""Rate limits per user and per IP on submissions and log-ins, with Retry-After."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD
from test_web_api_accounts import error_of
from web_helpers import PASSWORD, csrf_of, make_config, make_user, state

from web import create_app
from web.config import RateLimit
from web.errors import RateLimited
from web.serving.ratelimit import RateLimiter


@pytest.fixture
def strict_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    config = make_config(
        tmp_path,
        db_template,
        problems_root,
        submit_per_user=RateLimit(2, 60.0),
        submit_per_ip=RateLimit(3, 60.0),
        login_per_user=RateLimit(3, 300.0),
        login_per_ip=RateLimit(100, 300.0),
        start_workers=False,  # rows stay queued; these tests only count requests
    )
    app = create_app(config)
    yield app
    state(app).close()


_tries = itertools.count()


def post_code(client: FlaskClient, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    # Each a different code: an identical resubmission is refused before any limit counts.
    body = {"problem": "add-two", "code": f"{GOOD}# try {next(_tries)}\n"}
    return client.post("/api/submissions", json=body, headers=headers)


def test_submissions_are_limited_per_user_with_retry_after(strict_app: Flask) -> None:
    client = strict_app.test_client()
    ada = make_user(client, "ada")
    assert [post_code(client, ada.auth).status_code for _ in range(2)] == [202, 202]
    third = post_code(client, ada.auth)
    assert third.status_code == 429
    error = error_of(third)
    assert error["code"] == "rate_limited"
    assert "at most 2 per minute" in error["message"]
    assert int(third.headers["Retry-After"]) >= 1


def test_submissions_are_limited_per_ip_across_users(strict_app: Flask) -> None:
    client = strict_app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    assert [post_code(client, ada.auth).status_code for _ in range(2)] == [202, 202]
    assert post_code(client, bob.auth).status_code == 202
    blocked = post_code(client, bob.auth)
    assert blocked.status_code == 429
    assert "from this IP" in error_of(blocked)["message"]


def test_failed_log_ins_are_limited_per_username_and_address(strict_app: Flask) -> None:
    client = strict_app.test_client()
    make_user(client, "ada")  # a successful log-in is not a failure
    for _ in range(3):
        wrong = client.post("/api/token", json={"username": "ada", "password": "nope-nope"})
        assert wrong.status_code == 401
    blocked = client.post("/api/token", json={"username": "ADA", "password": PASSWORD})
    assert blocked.status_code == 429  # any spelling of the name is the same name
    assert "failed log-ins" in error_of(blocked)["message"]
    assert "Retry-After" in blocked.headers


def test_a_stranger_failing_log_ins_cannot_lock_the_owner_out(strict_app: Flask) -> None:
    """Pins the lock-out: failures were counted per username from every address, so
    anyone could keep an owner out by failing to log in as them."""
    client = strict_app.test_client()
    make_user(client, "ada")
    stranger = {"REMOTE_ADDR": "203.0.113.9"}
    for _ in range(5):
        client.post(
            "/api/token", json={"username": "ada", "password": "nope-nope"}, environ_base=stranger
        )
    owner = client.post("/api/token", json={"username": "ada", "password": PASSWORD})
    assert owner.status_code == 201
    again = client.post(
        "/api/token", json={"username": "ada", "password": PASSWORD}, environ_base=stranger
    )
    assert again.status_code == 429


def test_every_log_in_attempt_counts_toward_the_per_address_cap(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    config = make_config(
        tmp_path, db_template, problems_root, login_per_ip=RateLimit(3, 300.0), start_workers=False
    )
    app = create_app(config)
    try:
        client = app.test_client()
        make_user(client, "ada")  # attempt 1
        for name in ("bob", "cy"):  # attempts 2 and 3, each a different name
            client.post("/api/token", json={"username": name, "password": "nope-nope"})
        capped = client.post("/api/token", json={"username": "ada", "password": PASSWORD})
        assert capped.status_code == 429
        assert "log-in attempts" in error_of(capped)["message"]
    finally:
        state(app).close()


def test_rate_limited_login_page_shows_the_message(strict_app: Flask) -> None:
    client = strict_app.test_client()
    make_user(client, "ada")
    for _ in range(3):
        data = {"username": "ada", "password": "nope-nope", "csrf_token": csrf_of(client)}
        assert client.post("/login", data=data).status_code == 401
    data = {"username": "ada", "password": PASSWORD, "csrf_token": csrf_of(client)}
    page = client.post("/login", data=data)
    assert page.status_code == 429
    assert "too many failed log-ins" in page.get_data(as_text=True)


def test_rate_limit_messages_come_in_chinese(strict_app: Flask) -> None:
    client = strict_app.test_client()
    make_user(client, "ada")
    zh = {"Accept-Language": "zh-CN,zh;q=0.9"}
    for _ in range(4):
        last = client.post(
            "/api/token", json={"username": "ada", "password": "nope-nope"}, headers=zh
        )
    assert last.status_code == 429
    assert "登录" in error_of(last)["message"] and "秒后重试" in error_of(last)["message"]


def test_limiter_window_slides() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limit = RateLimit(2, 10.0)
    limiter.hit("k", limit, "things")
    now[0] = 5.0
    limiter.hit("k", limit, "things")
    with pytest.raises(RateLimited) as blocked:
        limiter.hit("k", limit, "things")
    assert blocked.value.retry_after == 5
    now[0] = 10.5  # the first event has left the window
    limiter.hit("k", limit, "things")
    limiter.hit("other", limit, "things")  # keys are independent
