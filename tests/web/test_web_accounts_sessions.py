"""Accounts and sessions as on a real site (issue 10, section 6): one name in every
spelling, log-out and password change end every session, tokens that expire, are listed
and can be revoked, and submissions on hidden problems that answer 404."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD
from sqlalchemy import update
from test_web_api_accounts import error_of
from web_helpers import (
    PASSWORD,
    Account,
    csrf_of,
    make_config,
    make_user,
    page_login,
    state,
    submit,
)
from werkzeug.security import generate_password_hash

from web import create_app
from web.config import sqlite_url
from web.store import migrate
from web.store.db import make_engine, transaction, utcnow
from web.store.models import ApiToken

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

NEW_PASSWORD = "battery-staple-9"


def token_for(client: FlaskClient, username: str, password: str = PASSWORD, **extra: object):  # type: ignore[no-untyped-def]
    return client.post("/api/token", json={"username": username, "password": password} | extra)


def me(client: FlaskClient, headers: dict[str, str] | None = None) -> object:
    return client.get("/api/me", headers=headers or {}).json["user"]


def parse(moment: str) -> datetime:
    return datetime.fromisoformat(moment.removesuffix("Z"))


# --- usernames -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["alice\n", "alice\r\n", " alice", "al ice", "ａｌｉｃｅ", "ålice", ".alice"],
)
def test_a_username_must_match_the_pattern_as_a_whole(client: FlaskClient, name: str) -> None:
    """Pins: USERNAME_RE.match with a trailing `$` let "alice\\n" register beside "alice"."""
    response = client.post("/api/register", json={"username": name, "password": PASSWORD})
    assert response.status_code == 400, name
    assert error_of(response)["code"] == "invalid_username"


def test_a_name_differing_only_in_case_is_taken(client: FlaskClient) -> None:
    """Pins: "Alice" could register beside "alice": two accounts people cannot tell apart."""
    make_user(client, "alice")
    for spelling in ("Alice", "ALICE"):
        taken = client.post("/api/register", json={"username": spelling, "password": PASSWORD})
        assert taken.status_code == 409, spelling
        assert error_of(taken)["code"] == "username_taken"


def test_log_in_accepts_any_spelling_and_shows_the_chosen_one(client: FlaskClient) -> None:
    created = client.post("/api/register", json={"username": "Grace", "password": PASSWORD})
    assert created.json["username"] == "Grace"
    for spelling in ("Grace", "grace", "GRACE", "ｇｒａｃｅ"):  # the last is full-width (NFKC)
        token = token_for(client, spelling)
        assert token.status_code == 201, spelling
        assert token.json["username"] == "Grace"
    page_login(client, "gRaCe")
    assert me(client) == {"id": created.json["id"], "username": "Grace", "is_admin": False}
    assert token_for(client, "grace", "wrong-password").status_code == 401


def test_the_submission_list_finds_a_user_by_any_spelling(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "Ada")
    submit(client, ada, GOOD)
    for spelling in ("Ada", "ada", "ADA"):
        rows = client.get(f"/api/submissions?user={spelling}").json["submissions"]
        assert [row["user"] for row in rows] == ["Ada"], spelling


def test_account_messages_come_in_chinese_and_english(client: FlaskClient) -> None:
    make_user(client, "alice")
    zh = {"Accept-Language": "zh-CN,zh;q=0.9"}
    cases = [
        ({"username": "alice\n", "password": PASSWORD}, "用户名须为", "username must be"),
        ({"username": "ALICE", "password": PASSWORD}, "已被占用", "is taken"),
        ({"username": "grace", "password": "short"}, "密码须为", "password must be"),
    ]
    for body, chinese, english in cases:
        in_zh = client.post("/api/register", json=body, headers=zh)
        assert chinese in error_of(in_zh)["message"], body
        assert english in error_of(client.post("/api/register", json=body))["message"], body
    wrong = token_for(client, "alice", "wrong-password")
    assert error_of(wrong)["message"] == "wrong username or password"
    wrong_zh = client.post(
        "/api/token", json={"username": "alice", "password": "wrong-pass"}, headers=zh
    )
    assert error_of(wrong_zh)["message"] == "用户名或密码错误"


# --- sessions ------------------------------------------------------------------------


def copy_session(source: FlaskClient, target: FlaskClient) -> None:
    cookie = source.get_cookie("session")
    assert cookie is not None
    target.set_cookie("session", cookie.value)


def test_log_out_ends_every_session_and_a_copied_cookie(app: Flask, client: FlaskClient) -> None:
    """Pins: log-out only cleared this browser's cookie; a copy of it (or another browser's
    session) stayed logged in for as long as the secret key lived."""
    make_user(client, "ada")
    page_login(client, "ada")
    copy, laptop = app.test_client(), app.test_client()
    copy_session(client, copy)
    page_login(laptop, "ada")
    assert me(copy) is not None and me(laptop) is not None
    assert client.post("/logout", data={"csrf_token": csrf_of(client)}).status_code == 303
    assert me(client) is None and me(copy) is None and me(laptop) is None
    page_login(client, "ada")  # logging in again works, with a new session
    assert me(client) is not None and me(copy) is None


def test_a_cookie_saved_before_log_out_is_refused_after_it(app: Flask, client: FlaskClient) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    saved = app.test_client()
    copy_session(client, saved)
    client.post("/logout", data={"csrf_token": csrf_of(client)})
    page_login(client, "ada")
    assert me(saved) is None  # the generation moved on; logging in again does not revive it


# --- password change -----------------------------------------------------------------


def change(client: FlaskClient, current: str, new: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    body = {"current_password": current, "new_password": new}
    return client.post("/api/password", json=body, headers=headers)


def test_password_change_ends_other_sessions_and_revokes_tokens(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    page_login(client, "ada")
    laptop = app.test_client()
    page_login(laptop, "ada")
    changed = change(client, PASSWORD, NEW_PASSWORD, {"X-CSRF-Token": csrf_of(client)})
    assert changed.status_code == 200, changed.json
    assert changed.json == {"username": "ada", "sessions_ended": True, "tokens_revoked": 1}
    assert me(client) is not None  # this browser stays logged in, on a fresh session
    assert me(laptop) is None
    assert client.get("/api/me", headers=ada.auth).status_code == 401
    assert token_for(client, "ada").status_code == 401
    assert token_for(client, "ada", NEW_PASSWORD).status_code == 201


def test_password_change_needs_the_current_password_and_a_valid_new_one(
    client: FlaskClient,
) -> None:
    ada = make_user(client, "ada")
    wrong = change(client, "not-it-at-all", NEW_PASSWORD, ada.auth)
    assert (wrong.status_code, error_of(wrong)["code"]) == (403, "wrong_password")
    assert error_of(wrong)["field"] == "current_password"
    short = change(client, PASSWORD, "short", ada.auth)
    assert (short.status_code, error_of(short)["code"]) == (400, "invalid_password")
    assert error_of(short)["field"] == "new_password"
    missing = client.post("/api/password", json={"new_password": NEW_PASSWORD}, headers=ada.auth)
    assert error_of(missing)["code"] == "missing_field"
    assert change(client, PASSWORD, NEW_PASSWORD, {}).status_code == 401  # nobody logged in
    assert me(client, ada.auth) is not None  # nothing changed


def test_password_change_with_a_cookie_needs_the_csrf_token(client: FlaskClient) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    forged = change(client, PASSWORD, NEW_PASSWORD, {})
    assert (forged.status_code, error_of(forged)["code"]) == (403, "csrf_failed")
    assert token_for(client, "ada").status_code == 201


def test_password_change_with_a_token_revokes_that_token_too(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    assert change(client, PASSWORD, NEW_PASSWORD, ada.auth).json["tokens_revoked"] == 1
    assert client.get("/api/tokens", headers=ada.auth).status_code == 401


def test_the_password_page_changes_the_password(app: Flask, client: FlaskClient) -> None:
    assert client.get("/account/password").status_code == 401
    make_user(client, "ada")
    page_login(client, "ada")
    laptop = app.test_client()
    page_login(laptop, "ada")
    page = client.get("/account/password", headers={"Accept-Language": "zh"})
    assert "修改密码" in page.get_data(as_text=True)
    form = {"current_password": "wrong-wrong", "new_password": NEW_PASSWORD}
    wrong = client.post("/account/password", data=form | {"csrf_token": csrf_of(client)})
    assert wrong.status_code == 403 and "current password is wrong" in wrong.get_data(as_text=True)
    assert client.post("/account/password", data=form).status_code == 403  # no CSRF token
    form["current_password"] = PASSWORD
    done = client.post("/account/password", data=form | {"csrf_token": csrf_of(client)})
    assert done.status_code == 303
    assert "Password changed" in client.get("/").get_data(as_text=True)
    assert me(client) is not None and me(laptop) is None
    assert token_for(client, "ada", NEW_PASSWORD).status_code == 201


# --- tokens --------------------------------------------------------------------------


def test_a_token_lives_30_days_or_less_if_asked(client: FlaskClient) -> None:
    make_user(client, "ada")
    default = token_for(client, "ada").json
    lifetime = parse(default["expires_at"]) - parse(default["created_at"])
    assert lifetime == timedelta(days=30)
    short = token_for(client, "ada", expires_in_days=1, label="ci").json
    assert parse(short["expires_at"]) - parse(short["created_at"]) == timedelta(days=1)
    assert short["label"] == "ci"
    for bad in (0, 31, True, "5", 1.5):
        refused = token_for(client, "ada", expires_in_days=bad)
        assert refused.status_code == 400, bad
        assert error_of(refused)["field"] == "expires_in_days"
    long_label = token_for(client, "ada", label="x" * 65)
    assert error_of(long_label)["field"] == "label"


def test_an_expired_token_is_401(app: Flask, client: FlaskClient) -> None:
    """Pins: bearer tokens never expired; a leaked one worked forever."""
    ada = make_user(client, "ada")
    with transaction(state(app).sessions) as db:
        db.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    expired = client.get("/api/me", headers=ada.auth)
    assert expired.status_code == 401
    assert error_of(expired)["code"] == "bad_token"
    assert "expired" in error_of(expired)["message"]


def test_tokens_are_listed_without_the_tokens(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    laptop = token_for(client, "ada", label="laptop").json["token"]
    listing = client.get("/api/tokens", headers=ada.auth)
    assert listing.status_code == 200
    tokens = listing.json["tokens"]
    assert [t["label"] for t in tokens] == ["laptop", None]  # newest first
    assert set(tokens[0]) == {"id", "label", "created_at", "last_used_at", "expires_at", "current"}
    assert [t["current"] for t in tokens] == [False, True]
    assert tokens[1]["last_used_at"] is not None and tokens[0]["last_used_at"] is None
    text = listing.get_data(as_text=True)
    assert ada.token not in text and laptop not in text
    assert client.get("/api/tokens").status_code == 401


def test_delete_api_token_revokes_the_token_in_use(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    other = token_for(client, "ada").json["token"]
    revoked = client.delete("/api/token", headers=ada.auth)
    assert revoked.status_code == 200 and revoked.json["revoked"] is True
    gone = client.get("/api/me", headers=ada.auth)
    assert (gone.status_code, error_of(gone)["code"]) == (401, "bad_token")
    assert me(client, {"Authorization": f"Bearer {other}"}) is not None  # only that one
    page_login(client, "ada")
    no_bearer = client.delete("/api/token", headers={"X-CSRF-Token": csrf_of(client)})
    assert no_bearer.status_code == 400


def test_a_token_is_revoked_by_id_by_its_owner_only(client: FlaskClient) -> None:
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    ada_id = client.get("/api/tokens", headers=ada.auth).json["tokens"][0]["id"]
    for token_id in (ada_id, 2**63, 999):
        refused = client.delete(f"/api/tokens/{token_id}", headers=bob.auth)
        assert (refused.status_code, error_of(refused)["code"]) == (404, "unknown_token")
    assert me(client, ada.auth) is not None
    page_login(client, "ada")
    assert client.delete(f"/api/tokens/{ada_id}").status_code == 403  # cookie: CSRF needed
    done = client.delete(f"/api/tokens/{ada_id}", headers={"X-CSRF-Token": csrf_of(client)})
    assert done.json == {"id": ada_id, "revoked": True}
    assert client.get("/api/me", headers=ada.auth).status_code == 401


# --- hidden problems -----------------------------------------------------------------


def hide(client: FlaskClient, root: Account) -> None:
    response = client.post(
        "/api/admin/problems/add-two/hidden", json={"hidden": True}, headers=root.auth
    )
    assert response.status_code == 200


def test_a_submission_on_a_hidden_problem_is_404_to_everyone_but_admins(
    app: Flask, client: FlaskClient
) -> None:
    """Pins: a hidden problem's submissions stayed readable by id: the summary, the event
    stream and the page, so hiding a problem did not hide its code or results."""
    root, ada, bob = (
        make_user(client, "root", admin=True),
        make_user(client, "ada"),
        make_user(client, "bob"),
    )
    sid = submit(client, ada, GOOD)
    hide(client, root)
    for who in (ada.auth, bob.auth, {}):
        for path in (f"/api/submissions/{sid}", f"/api/submissions/{sid}/events"):
            response = client.get(path, headers=who)
            assert response.status_code == 404, (path, who)
            assert error_of(response)["code"] == "unknown_submission"
        assert client.get(f"/submissions/{sid}", headers=who).status_code == 404
    assert client.get(f"/api/submissions/{sid}", headers=root.auth).json["code"] == GOOD
    assert client.get(f"/submissions/{sid}", headers=root.auth).status_code == 200


def test_accounts_from_before_normalisation_keep_logging_in(
    tmp_path: Path, problems_root: Path
) -> None:
    """ "ada" and "Ada", both registered before names were normalised, still log in as
    themselves: the exact stored spelling wins, then the normalised one."""
    old = tmp_path / "old.sqlite3"
    migrate.upgrade(sqlite_url(old), "0003")
    engine = make_engine(sqlite_url(old))
    with engine.begin() as connection:
        for uid, name in ((1, "ada"), (2, "Ada")):
            digest = generate_password_hash(f"{PASSWORD}-{uid}", method="pbkdf2:sha256:1000")
            connection.exec_driver_sql(
                "INSERT INTO users VALUES (?, ?, ?, 0, '2026-11-01 00:00:00')", (uid, name, digest)
            )
    engine.dispose()
    app = create_app(make_config(tmp_path, old, problems_root, start_workers=False))
    client = app.test_client()
    for spelling, uid in (("ada", 1), ("Ada", 2), ("ADA", 1)):
        token = token_for(client, spelling, f"{PASSWORD}-{uid}")
        assert token.status_code == 201, spelling
        assert me(client, {"Authorization": f"Bearer {token.json['token']}"})["id"] == uid  # type: ignore[index]
    state(app).close()
