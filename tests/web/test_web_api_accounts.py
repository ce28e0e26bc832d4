"""POST /api/register, POST /api/token, bearer tokens, and the one error shape."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from web_helpers import PASSWORD, make_user

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def error_of(response) -> dict:  # type: ignore[no-untyped-def]
    body = response.json
    assert set(body) == {"error"}, body
    assert body["error"]["status"] == response.status_code
    return body["error"]


def test_register_creates_an_account_that_can_get_a_token(client: FlaskClient) -> None:
    created = client.post("/api/register", json={"username": "ada", "password": PASSWORD})
    assert created.status_code == 201
    assert created.json["username"] == "ada"
    token = client.post("/api/token", json={"username": "ada", "password": PASSWORD})
    assert token.status_code == 201
    assert token.json["token"].startswith("jdg_")
    me = client.get("/api/me", headers={"Authorization": f"Bearer {token.json['token']}"})
    assert me.json["user"]["username"] == "ada"


def test_register_refuses_a_taken_username(client: FlaskClient) -> None:
    make_user(client, "ada")
    again = client.post("/api/register", json={"username": "ada", "password": PASSWORD})
    assert again.status_code == 409
    assert error_of(again)["code"] == "username_taken"


def test_register_validates_username_and_password(client: FlaskClient) -> None:
    cases = [
        ({"username": "a", "password": PASSWORD}, "invalid_username"),
        ({"username": "bad name!", "password": PASSWORD}, "invalid_username"),
        ({"username": "x" * 40, "password": PASSWORD}, "invalid_username"),
        ({"username": "grace", "password": "short"}, "invalid_password"),
        ({"username": "grace", "password": "p" * 200}, "invalid_password"),
        ({"username": "grace"}, "missing_field"),
        ({"password": PASSWORD}, "missing_field"),
        ({"username": 7, "password": PASSWORD}, "invalid_field"),
    ]
    for body, code in cases:
        response = client.post("/api/register", json=body)
        assert response.status_code == 400, body
        assert error_of(response)["code"] == code, body


def test_malformed_json_and_wrong_content_type_are_rejected(client: FlaskClient) -> None:
    broken = client.post("/api/register", data=b"{not json", content_type="application/json")
    assert broken.status_code == 400
    assert error_of(broken)["code"] == "malformed_json"
    not_utf8 = client.post("/api/register", data=b'{"a": "\xff"}', content_type="application/json")
    assert error_of(not_utf8)["code"] == "malformed_json"
    array = client.post("/api/register", json=["ada", PASSWORD])
    assert error_of(array)["code"] == "malformed_json"
    form = client.post("/api/register", data={"username": "ada", "password": PASSWORD})
    assert form.status_code == 415
    assert error_of(form)["code"] == "unsupported_media_type"


def test_token_refuses_wrong_password_and_unknown_user(client: FlaskClient) -> None:
    make_user(client, "ada")
    wrong = client.post("/api/token", json={"username": "ada", "password": "wrong-password"})
    assert wrong.status_code == 401
    assert error_of(wrong)["code"] == "bad_credentials"
    nobody = client.post("/api/token", json={"username": "nobody", "password": PASSWORD})
    assert nobody.status_code == 401
    assert error_of(nobody)["message"] == error_of(wrong)["message"]


def test_bad_or_malformed_bearer_tokens_are_401(client: FlaskClient) -> None:
    for header in ("Bearer jdg_not-a-real-token", "Bearer ", "Basic YWRhOnB3", "jdg_x"):
        response = client.get("/api/me", headers={"Authorization": header})
        assert response.status_code == 401, header
        assert error_of(response)["code"] == "bad_token"


def test_tokens_are_stored_hashed(client: FlaskClient) -> None:
    from sqlalchemy import select
    from web_helpers import state

    from web.store.models import ApiToken

    account = make_user(client, "ada")
    with state(client.application).sessions() as db:
        stored = db.scalars(select(ApiToken.token_hash)).all()
    assert account.token not in stored
    assert all(len(h) == 64 for h in stored)


def test_unknown_api_route_and_method_use_the_error_shape(client: FlaskClient) -> None:
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404
    assert error_of(missing)["code"] == "not_found"
    wrong_method = client.delete("/api/problems")
    assert wrong_method.status_code == 405
    assert error_of(wrong_method)["code"] == "method_not_allowed"
