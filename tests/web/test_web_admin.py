"""Admins rejudge a problem (or one version of it) and hide problems."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG
from sqlalchemy import update
from test_web_api_accounts import error_of
from web_helpers import csrf_of, make_user, page_login, state, submit, wait_judged

from web.store.db import transaction
from web.store.models import Judging, Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_only_admins_may_rejudge_or_hide(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    for url, body in (
        ("/api/admin/problems/add-two/rejudge", {}),
        ("/api/admin/problems/add-two/hidden", {"hidden": True}),
    ):
        anonymous = client.post(url, json=body)
        assert anonymous.status_code == 401
        user = client.post(url, json=body, headers=ada.auth)
        assert user.status_code == 403
        assert error_of(user)["code"] == "admin_only"


def test_rejudge_requeues_and_judges_again(app: Flask, client: FlaskClient) -> None:
    root = make_user(client, "root", admin=True)
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    wait_judged(app)
    response = client.post("/api/admin/problems/add-two/rejudge", json={}, headers=root.auth)
    assert response.json["requeued"] == 1
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    assert (view["status"], view["verdict"]) == ("done", "AC")
    assert client.get("/api/leaderboard").json["entries"][0]["points"] == 100


def test_rejudge_of_one_version_leaves_the_others(app: Flask, client: FlaskClient) -> None:
    root = make_user(client, "root", admin=True)
    ada = make_user(client, "ada")
    old, new = submit(client, ada, WRONG), submit(client, ada, GOOD)
    wait_judged(app)
    with transaction(state(app).sessions) as db:
        db.execute(update(Submission).where(Submission.id == old).values(problem_version="v-old"))
    body = {"version": "v-old"}
    response = client.post("/api/admin/problems/add-two/rejudge", json=body, headers=root.auth)
    assert response.json["requeued"] == 1
    wait_judged(app)
    with state(app).sessions() as db:
        rows = {s.id: s for s in db.query(Submission)}
        history = [(j.submission_id, j.attempt) for j in db.query(Judging).order_by(Judging.id)]
    # The rejudge is a new attempt of the old submission; the other one was left alone.
    assert rows[old].attempts == 2 and rows[old].problem_version != "v-old"
    assert rows[new].attempts == 1 and rows[new].verdict == "AC"
    assert sorted(history) == [(old, 1), (old, 2), (new, 1)]
    bad = client.post("/api/admin/problems/add-two/rejudge", json={"version": 3}, headers=root.auth)
    assert error_of(bad)["code"] == "invalid_field"


def test_hidden_problems_vanish_for_users_but_not_admins(app: Flask, client: FlaskClient) -> None:
    root = make_user(client, "root", admin=True)
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    wait_judged(app)
    hide = client.post(
        "/api/admin/problems/add-two/hidden", json={"hidden": True}, headers=root.auth
    )
    assert hide.json == {"problem": "add-two", "hidden": True}
    slugs = [p["slug"] for p in client.get("/api/problems", headers=ada.auth).json["problems"]]
    assert slugs == ["add-more"]
    assert client.get("/api/problems/add-two", headers=ada.auth).status_code == 404
    assert client.get("/problems/add-two").status_code == 404
    blocked = client.post(
        "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=ada.auth
    )
    assert blocked.status_code == 404
    admin_view = client.get("/api/problems", headers=root.auth).json["problems"]
    for headers in ({}, ada.auth):
        assert client.get("/api/submissions", headers=headers).json["submissions"] == []
    listed = client.get("/api/submissions", headers=root.auth).json["submissions"]
    assert [s["id"] for s in listed] == [sid]
    assert (admin_view[0]["slug"], admin_view[0]["hidden"]) == ("add-two", True)
    bad = client.post(
        "/api/admin/problems/add-two/hidden", json={"hidden": "yes"}, headers=root.auth
    )
    assert error_of(bad)["code"] == "invalid_field"


def test_admin_page_forms_hide_and_rejudge(app: Flask, client: FlaskClient) -> None:
    make_user(client, "root", admin=True)
    page_login(client, "root")
    assert "add-two" in client.get("/admin").get_data(as_text=True)
    form = {"hidden": "1", "csrf_token": csrf_of(client)}
    assert client.post("/admin/problems/add-two/hidden", data=form).status_code == 303
    assert client.post("/admin/problems/add-two/hidden", data={"hidden": "1"}).status_code == 403
    rejudge = {"version": "", "csrf_token": csrf_of(client)}
    response = client.post("/admin/problems/add-two/rejudge", data=rejudge, follow_redirects=True)
    assert "0 submissions re-queued" in response.get_data(as_text=True)


def test_admin_page_is_not_for_users(client: FlaskClient) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    assert client.get("/admin").status_code == 403
