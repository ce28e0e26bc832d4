"""Cross-origin calls from a handbook's pages (web/serving/cors.py, JUDGE_CORS_ORIGINS): only
a configured origin is answered so that its page may read the answer, never with
credentials, and a cookie-borne call still needs the CSRF token whoever sends it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD
from web_helpers import PASSWORD, make_user, page_login, state

from web import create_app
from web.config import WebConfig, load_config

HANDBOOK = "https://handbook.example.org"
STRANGER = "https://evil.example.net"


@pytest.fixture
def app(config: WebConfig) -> Iterator[Flask]:
    app = create_app(config.with_(cors_origins=(HANDBOOK,)))
    app.testing = True
    yield app
    state(app).close()


def test_origins_are_read_as_a_browser_writes_them() -> None:
    from web.config import parse_origins

    raw = "https://handbook.example.org/, http://127.0.0.1:8001,http://[::1]:8000"
    assert parse_origins(raw) == (HANDBOOK, "http://127.0.0.1:8001", "http://[::1]:8000")


def test_the_configured_origin_may_read_the_api_and_no_other(client: FlaskClient) -> None:
    for origin, allowed in ((HANDBOOK, HANDBOOK), (STRANGER, None)):
        answer = client.get("/api/problems", headers={"Origin": origin})
        assert answer.status_code == 200
        assert answer.headers.get("Access-Control-Allow-Origin") == allowed
        assert "Origin" in answer.headers.get("Vary", "")
        assert "Access-Control-Allow-Credentials" not in answer.headers


def test_a_preflight_from_the_handbook_allows_a_bearer_token_and_json(client: FlaskClient) -> None:
    asked = {
        "Origin": HANDBOOK,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }
    answer = client.options("/api/submissions", headers=asked)
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == HANDBOOK
    assert answer.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type"
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    stranger = client.options("/api/submissions", headers={**asked, "Origin": STRANGER})
    assert "Access-Control-Allow-Origin" not in stranger.headers


def test_the_handbook_logs_in_for_a_token_and_submits_with_it(client: FlaskClient) -> None:
    make_user(client, "reader")
    origin = {"Origin": HANDBOOK}
    login = {"username": "reader", "password": PASSWORD}
    token = client.post("/api/token", json=login, headers=origin)
    assert token.status_code == 201, token.json
    bearer = {**origin, "Authorization": f"Bearer {token.json['token']}"}
    sent = client.post(
        "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=bearer
    )
    assert sent.status_code == 202, sent.json
    assert sent.headers["Access-Control-Allow-Origin"] == HANDBOOK


def test_a_cookie_call_from_the_handbooks_origin_still_needs_the_csrf_token(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    forged = client.post(
        "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers={"Origin": HANDBOOK}
    )
    assert forged.status_code == 403, forged.json


def test_pages_are_never_opened_to_another_origin(client: FlaskClient) -> None:
    answer = client.get("/", headers={"Origin": HANDBOOK})
    assert "Access-Control-Allow-Origin" not in answer.headers


@pytest.mark.parametrize(
    "raw",
    [
        "*",
        "https://*.example.org",
        "https://handbook.example.org/docs",
        "handbook.example.org",
        "https://Handbook.example.org",
        "https://handbook.example.org:443",
        "https://bücher.example",
        "http://h:99999",
    ],
)
def test_a_cors_setting_that_is_not_a_list_of_origins_is_refused_at_start(
    raw: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JUDGE_CORS_ORIGINS", raw)
    with pytest.raises(ValueError, match="JUDGE_CORS_ORIGINS holds"):
        load_config(tmp_path / "instance")


def handbook_token(client: FlaskClient, username: str) -> dict[str, str]:
    login = {"username": username, "password": PASSWORD, "label": "mine", "expires_in_days": 30}
    token = client.post("/api/token", json=login, headers={"Origin": HANDBOOK})
    assert token.status_code == 201, token.json
    assert token.json["label"] == f"handbook page {HANDBOOK}"  # the server's, not the page's
    return {"Origin": HANDBOOK, "Authorization": f"Bearer {token.json['token']}"}


def test_a_handbook_pages_token_submits_but_manages_nothing(client: FlaskClient) -> None:
    make_user(client, "reader")
    bearer = handbook_token(client, "reader")
    assert client.get("/api/me", headers=bearer).json["user"]["username"] == "reader"
    refused = [
        client.get("/api/tokens", headers=bearer),
        client.delete("/api/tokens/1", headers=bearer),
        client.post(
            "/api/password",
            json={"current_password": PASSWORD, "new_password": "another long one"},
            headers=bearer,
        ),
    ]
    for answer in refused:
        assert (answer.status_code, answer.json["error"]["code"]) == (403, "handbook_token")
    # Log out from the page revokes the token itself (DELETE is allowed by the preflight).
    asked = {"Origin": HANDBOOK, "Access-Control-Request-Method": "DELETE"}
    assert (
        "DELETE"
        in client.options("/api/token", headers=asked).headers["Access-Control-Allow-Methods"]
    )
    assert client.delete("/api/token", headers=bearer).status_code == 200
    assert client.get("/api/me", headers=bearer).status_code == 401


def test_an_admins_handbook_token_is_not_an_admins(client: FlaskClient) -> None:
    make_user(client, "root", admin=True)
    bearer = handbook_token(client, "root")
    assert client.get("/api/me", headers=bearer).json["user"]["is_admin"] is False
    assert client.get("/api/admin/workers", headers=bearer).status_code == 403


def test_a_handbook_pages_token_lasts_two_weeks_at_most(client: FlaskClient) -> None:
    from datetime import datetime

    make_user(client, "reader")
    login = {"username": "reader", "password": PASSWORD, "expires_in_days": 30}
    token = client.post("/api/token", json=login, headers={"Origin": HANDBOOK}).json
    made, ends = (datetime.fromisoformat(token[k]) for k in ("created_at", "expires_at"))
    assert (ends - made).days == 14
