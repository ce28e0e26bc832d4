"""One access-log line per request with a request id the response returns (issue 10,
section 6: requests left no trace, and nothing tied a user's report to a server line)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_helpers import make_user, state

from web.store.models import User


def access_records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [r.access for r in caplog.records if r.name == "web.access"]  # type: ignore[attr-defined]


def test_each_request_logs_method_path_status_duration_user_and_request_id(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Pins: the server wrote no access log and returned no request id."""
    ada = make_user(client, "ada")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="web.access"):
        visitor = client.get("/api/problems?secret=no")
        user = client.get("/api/me", headers=ada.auth)
        missing = client.get("/api/submissions/999999", headers=ada.auth)
    records = access_records(caplog)
    assert len(records) == 3
    ids = [r.headers["X-Request-ID"] for r in (visitor, user, missing)]
    assert [r["request_id"] for r in records] == ids and len(set(ids)) == 3
    assert [(r["method"], r["path"], r["status"]) for r in records] == [
        ("GET", "/api/problems", 200),
        ("GET", "/api/me", 200),
        ("GET", "/api/submissions/999999", 404),
    ]
    assert records[0]["user_id"] == "-"
    with state(client.application).sessions() as db:
        ada_id = db.query(User).filter_by(username="ada").one().id
    assert records[1]["user_id"] == str(ada_id) == records[2]["user_id"]
    assert user.status_code == 200
    assert all(isinstance(r["duration_ms"], float) and r["duration_ms"] >= 0 for r in records)
    line = next(r.getMessage() for r in caplog.records if r.name == "web.access")
    assert line.startswith("GET /api/problems 200 ") and f"request={ids[0]}" in line
    assert "secret" not in line  # the query string is not logged


def test_a_newline_in_the_path_cannot_forge_a_second_log_line(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="web.access"):
        client.get("/x%0AGET%20/admin%20200")
    (message,) = [r.getMessage() for r in caplog.records if r.name == "web.access"]
    assert "\n" not in message and "/x\\nGET /admin 200 404" in message
