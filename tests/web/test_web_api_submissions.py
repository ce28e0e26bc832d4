"""POST /api/submissions and reading submissions back: judged by the real core."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, SYNTAX_ERROR, WRONG
from test_web_api_accounts import error_of
from web_helpers import make_user, submit, wait_judged

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_an_accepted_submission_reaches_done_with_per_case_results(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    created = client.post(
        "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=ada.auth
    )
    assert created.status_code == 202
    assert created.json["status"] == "queued"
    assert created.headers["Location"] == f"/api/submissions/{created.json['id']}"
    wait_judged(app)
    view = client.get(created.json["url"], headers=ada.auth).json
    assert (view["status"], view["verdict"], view["points"]) == ("done", "AC", 100)
    assert view["passed"] == view["total"] == 5
    assert view["code"] == GOOD
    assert view["seed"] == "secret"
    assert [c["name"] for c in view["cases"]][:2] == ["small", "negative"]


def test_a_wrong_answer_shows_values_for_public_cases_only(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    assert view["verdict"] == "WA"
    assert view["points"] == 0
    public = [c for c in view["cases"] if c["public"]]
    hidden = [c for c in view["cases"] if not c["public"]]
    assert public and hidden
    assert all("expected" in c for c in public if c["verdict"] == "WA")
    assert all("expected" not in c and "got" not in c for c in hidden)


def test_a_syntax_error_is_a_compile_error_with_its_line(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, SYNTAX_ERROR)
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    assert view["verdict"] == "CE"
    assert view["compile_error"]["line"] == 1


def test_others_see_the_verdict_but_not_the_code(app: Flask, client: FlaskClient) -> None:
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    sid = submit(client, ada, GOOD)
    wait_judged(app)
    for headers in (bob.auth, {}):
        view = client.get(f"/api/submissions/{sid}", headers=headers).json
        assert view["verdict"] == "AC"
        assert "code" not in view and "cases" not in view


def test_submitting_needs_an_account(client: FlaskClient) -> None:
    response = client.post("/api/submissions", json={"problem": "add-two", "code": GOOD})
    assert response.status_code == 401
    assert error_of(response)["code"] == "login_required"


def test_bad_submission_input_is_rejected_before_storing(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    cases = [
        ({"code": GOOD}, 400, "missing_field"),
        ({"problem": "add-two"}, 400, "missing_field"),
        ({"problem": "add-two", "code": 5}, 400, "invalid_field"),
        ({"problem": "nope", "code": GOOD}, 404, "unknown_problem"),
        ({"problem": "add-two", "code": "x = 1\n" + "#" * 70_000}, 400, "invalid_code"),
        ({"problem": "add-two", "code": "x = 1\0"}, 400, "invalid_code"),
        ({"problem": "add-two", "code": "x = '\ud800'"}, 400, "invalid_code"),
        ({"problem": "add-two", "code": "   \n"}, 400, "invalid_code"),
    ]
    for body, status, code in cases:
        response = client.post("/api/submissions", json=body, headers=ada.auth)
        assert response.status_code == status, body
        assert error_of(response)["code"] == code, body
    listed = client.get("/api/submissions").json["submissions"]
    assert listed == []


def test_unknown_problem_suggests_the_closest_slug(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    response = client.post(
        "/api/submissions", json={"problem": "add-tow", "code": GOOD}, headers=ada.auth
    )
    assert "did you mean 'add-two'" in error_of(response)["message"]


def test_an_oversized_request_is_413_in_the_error_shape(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    body = {"problem": "add-two", "code": "#" * 300_000}
    response = client.post("/api/submissions", json=body, headers=ada.auth)
    assert response.status_code == 413
    assert error_of(response)["code"] == "too_large"


def test_client_sent_verdict_fields_are_ignored(app: Flask, client: FlaskClient) -> None:
    """A browser cannot forge a result: only the server's judge writes verdicts."""
    ada = make_user(client, "ada")
    body = {"problem": "add-two", "code": WRONG, "verdict": "AC", "status": "done", "points": 100}
    sid = client.post("/api/submissions", json=body, headers=ada.auth).json["id"]
    wait_judged(app)
    assert client.get(f"/api/submissions/{sid}").json["verdict"] == "WA"
    assert client.get("/api/leaderboard").json["entries"][0]["points"] == 0


def test_listing_filters_by_problem_and_user_and_pages_by_id(
    app: Flask, client: FlaskClient
) -> None:
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    ids = [submit(client, ada, WRONG), submit(client, bob, WRONG)]
    ids.append(submit(client, ada, WRONG, problem="add-more"))
    wait_judged(app)
    everything = client.get("/api/submissions").json["submissions"]
    assert [s["id"] for s in everything] == ids[::-1]
    by_ada = client.get("/api/submissions?user=ada").json["submissions"]
    assert [s["id"] for s in by_ada] == [ids[2], ids[0]]
    by_problem = client.get("/api/submissions?problem=add-two&user=bob").json["submissions"]
    assert [s["id"] for s in by_problem] == [ids[1]]
    page = client.get("/api/submissions?limit=2").json
    assert len(page["submissions"]) == 2
    rest = client.get(page["next"]).json
    assert [s["id"] for s in rest["submissions"]] == [ids[0]]
    assert rest["next"] is None


def test_listing_rejects_bad_query_values(client: FlaskClient) -> None:
    for query in ("limit=0", "limit=1000", "limit=ten", "before=-1"):
        response = client.get(f"/api/submissions?{query}")
        assert response.status_code == 400, query
        assert error_of(response)["code"] == "invalid_query"


def test_unknown_submission_is_404(client: FlaskClient) -> None:
    response = client.get("/api/submissions/999")
    assert error_of(response)["code"] == "unknown_submission"


def test_event_stream_ends_with_the_verdict(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    response = client.get(f"/api/submissions/{sid}/events", headers=ada.auth)
    assert response.mimetype == "text/event-stream"
    text = response.get_data(as_text=True)
    assert "event: done" in text
    assert '"verdict": "AC"' in text


def test_event_streams_are_capped_and_then_clients_poll(
    tmp_path,
    db_template,
    problems_root,  # type: ignore[no-untyped-def]
) -> None:
    from web_helpers import make_config, state

    from web import create_app

    config = make_config(tmp_path, db_template, problems_root, max_event_streams=1)
    app = create_app(config.with_(start_workers=False))
    client = app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    first = client.get(f"/api/submissions/{sid}/events", buffered=False)
    busy = client.get(f"/api/submissions/{sid}/events")
    assert busy.status_code == 503
    assert error_of(busy)["code"] == "streams_busy"
    assert busy.headers["Retry-After"] == "2"
    first.close()  # the slot comes back when a stream ends
    again = client.get(f"/api/submissions/{sid}/events", buffered=False)
    assert again.status_code == 200
    again.close()
    state(app).close()


def test_one_client_cannot_take_every_event_stream(
    tmp_path,
    db_template,
    problems_root,  # type: ignore[no-untyped-def]
) -> None:
    """Anyone could hold all eight slots by reopening streams on a running submission, and
    every other learner got 503 (red-team finding): a client holds at most its share."""
    from web_helpers import make_config, state

    from web import create_app

    config = make_config(tmp_path, db_template, problems_root, event_streams_per_client=2)
    app = create_app(config.with_(start_workers=False))
    client = app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    sid = submit(client, ada, GOOD)
    url = f"/api/submissions/{sid}/events"
    held = [client.get(url, headers=ada.auth, buffered=False) for _ in range(2)]
    assert all(r.status_code == 200 for r in held)
    third = client.get(url, headers=ada.auth)
    assert third.status_code == 503 and error_of(third)["code"] == "streams_busy"
    other = client.get(url, headers=bob.auth, buffered=False)
    assert other.status_code == 200  # another learner still gets a stream
    for response in [*held, other]:
        response.close()
    state(app).close()
