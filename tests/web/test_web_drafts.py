"""Drafts on the server (GET/PUT /api/problems/<slug>/draft): one per user and problem,
size-limited like a submission's code, CSRF-checked with the session cookie like every
other cookie write, and nobody else's."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from web_helpers import csrf_of, make_user, page_login

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

DRAFT = "def add(a, b):\n    return a  # not yet\n"


def test_a_saved_draft_is_read_back_and_replaced(client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    empty = client.get("/api/problems/add-two/draft", headers=alice.auth).json
    assert empty == {"problem": "add-two", "code": None, "updated_at": None}
    saved = client.put("/api/problems/add-two/draft", json={"code": DRAFT}, headers=alice.auth)
    assert saved.status_code == 200 and saved.json["code"] == DRAFT and saved.json["updated_at"]
    client.put("/api/problems/add-two/draft", json={"code": "x = 2\n"}, headers=alice.auth)
    again = client.get("/api/problems/add-two/draft", headers=alice.auth).json
    assert again["code"] == "x = 2\n" and again["updated_at"] >= saved.json["updated_at"]
    other = client.get("/api/problems/add-more/draft", headers=alice.auth).json
    assert other["code"] is None  # per problem


def test_drafts_are_per_user(client: FlaskClient) -> None:
    alice, bob = make_user(client, "alice"), make_user(client, "bob")
    client.put("/api/problems/add-two/draft", json={"code": DRAFT}, headers=alice.auth)
    assert client.get("/api/problems/add-two/draft", headers=bob.auth).json["code"] is None


def test_a_draft_obeys_the_code_limits(client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    for code in ("x" * (64 * 1024 + 1), "a\0b", "   "):
        refused = client.put("/api/problems/add-two/draft", json={"code": code}, headers=alice.auth)
        assert refused.status_code == 400 and refused.json["error"]["code"] == "invalid_code"
    missing = client.put("/api/problems/add-two/draft", json={}, headers=alice.auth)
    assert missing.json["error"]["code"] == "missing_field"


def test_drafts_need_a_user_and_a_known_problem(client: FlaskClient) -> None:
    assert client.get("/api/problems/add-two/draft").json["error"]["code"] == "login_required"
    alice = make_user(client, "alice")
    unknown = client.get("/api/problems/add-thre/draft", headers=alice.auth)
    assert unknown.status_code == 404 and unknown.json["error"]["code"] == "unknown_problem"


def test_a_cookie_write_needs_the_csrf_token(client: FlaskClient) -> None:
    make_user(client, "alice")
    page_login(client, "alice")
    refused = client.put("/api/problems/add-two/draft", json={"code": DRAFT})
    assert refused.status_code == 403 and refused.json["error"]["code"] == "csrf_failed"
    token = {"X-CSRF-Token": csrf_of(client)}
    assert (
        client.put("/api/problems/add-two/draft", json={"code": DRAFT}, headers=token).status_code
        == 200
    )
    assert client.get("/api/problems/add-two/draft").json["code"] == DRAFT
