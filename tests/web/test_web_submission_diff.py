"""The diff of two of your own submissions (GET /api/submissions/<id>/diff?against=<id>):
a line diff with line numbers on each side; nobody else's code is ever diffed."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_user, submit, wait_judged
from web_problem_fixture import GOOD

from web.diffs import line_diff

SECOND = "def add(a, b):\n    total = a + b\n    return total\n"


def test_a_line_diff_keeps_both_sides_numbered() -> None:
    rows = line_diff("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(r["op"], r["old"], r["new"], r["text"]) for r in rows] == [
        (" ", 1, 1, "a"),
        ("-", 2, None, "b"),
        ("+", None, 2, "B"),
        (" ", 3, 3, "c"),
        ("+", None, 4, "d"),
    ]


def test_two_of_your_submissions_diff_line_by_line(app: Flask, client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    first, second = submit(client, alice, GOOD), submit(client, alice, SECOND)
    wait_judged(app)
    diff = client.get(f"/api/submissions/{first}/diff?against={second}", headers=alice.auth).json
    assert diff["from"]["id"] == first and diff["to"]["id"] == second
    assert diff["from"]["verdict"] == "AC" and diff["added"] == 2 and diff["removed"] == 1
    assert {"op": "-", "old": 2, "new": None, "text": "    return a + b"} in diff["lines"]
    assert {"op": "+", "old": None, "new": 3, "text": "    return total"} in diff["lines"]


def test_someone_elses_submission_is_never_diffed(app: Flask, client: FlaskClient) -> None:
    alice, bob = make_user(client, "alice"), make_user(client, "bob")
    mine, theirs = submit(client, alice, GOOD), submit(client, bob, SECOND)
    wait_judged(app)
    refused = client.get(f"/api/submissions/{mine}/diff?against={theirs}", headers=alice.auth)
    assert refused.status_code == 404 and refused.json["error"]["code"] == "unknown_submission"
    assert "total" not in refused.get_data(as_text=True)
    anonymous = client.get(f"/api/submissions/{mine}/diff?against={theirs}")
    assert anonymous.json["error"]["code"] == "login_required"


def test_a_diff_needs_the_other_submission(app: Flask, client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    mine = submit(client, alice, GOOD)
    missing = client.get(f"/api/submissions/{mine}/diff", headers=alice.auth)
    assert missing.status_code == 400 and missing.json["error"]["field"] == "against"
