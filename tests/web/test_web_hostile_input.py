"""Requests that once gave HTTP 500, each on SQLite and on PostgreSQL (issue 22, section 1):
a Host header werkzeug cannot bind, ids past the 4-byte INTEGER columns, NUL in any text a
request carries, and broker messages a worker must drop. Each is a 400 or 404 with the
error shape (or a dropped message with one log line), the same on both stores."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from problem_factory import GOOD
from web_helpers import (
    STORES,
    Account,
    csrf_of,
    make_user,
    page_login,
    state,
    store_config,
    submit,
)

from web import create_app
from web.judging import jobs
from web.judging.celery_queue import TASK_JUDGE, TASK_RUN, Capability, CeleryQueue, make_celery
from web.judging.celery_worker import register_tasks
from web.serving.csp import HEADER as CSP

INT_MAX = 2**31 - 1  # the largest id a PostgreSQL INTEGER column holds
PAST = INT_MAX + 1


class Platform:
    def __init__(self, app: Flask) -> None:
        self.app = app
        setup = app.test_client()
        self.root = make_user(setup, "root", admin=True)
        self.ada = make_user(setup, "ada")
        self.sid = submit(setup, self.ada, GOOD)

    def get(self, path: str, who: Account | None = None, **kwargs: Any) -> Any:
        headers = (who.auth if who else {}) | kwargs.pop("headers", {})
        return self.app.test_client().get(path, headers=headers, **kwargs)


@pytest.fixture(scope="module", params=STORES)
def platform(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    db_template: Path,
    problems_root: Path,
) -> Iterator[Platform]:
    folder = tmp_path_factory.mktemp(request.param)
    with store_config(
        request, request.param, folder, db_template, problems_root, start_workers=False
    ) as config:
        app = create_app(config)
        app.testing = True
        try:
            yield Platform(app)
        finally:
            state(app).close()


def assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    assert response.headers.get(CSP), "an error page carries the CSP too"
    assert response.headers.get("X-Request-ID")
    if response.mimetype == "application/json":
        assert response.json["error"]["code"] == code, response.json


LONG_LABEL = "a" * 64


@pytest.mark.parametrize(
    "host", [f"{LONG_LABEL}.example", LONG_LABEL, f"{LONG_LABEL}:8000", "judge..example", "."]
)
@pytest.mark.parametrize("path", ["/", "/problems/add-two", "/login", "/api/me", "/nope"])
def test_a_host_header_werkzeug_cannot_bind_is_a_400_with_csp_and_request_id(
    platform: Platform, host: str, path: str
) -> None:
    """Regression: a 64-character DNS label made werkzeug's BadHost, then the error page's
    url_for failed on the missing URL adapter: a bare 500 without CSP or request id."""
    response = platform.get(path, headers={"Host": host})
    assert_error(response, 400, "bad_host")
    text = response.get_data(as_text=True)
    assert "Host" in text and "63" in text, text[:300]


@pytest.mark.parametrize("host", ["a\x00b", "a b", "a\tb", "evil.com/x", "a@evil.com", "a\x7fb"])
def test_a_host_with_characters_no_host_name_holds_is_a_400(platform: Platform, host: str) -> None:
    """Regression (the fuzz suite, hypothesis): a NUL passes IDNA, and a redirect werkzeug
    built on that host lost it and pointed at "http:///...", off the site."""
    path = "/api/problems/add-two/questions/%2F%2Fevil.com/reveal"
    client = platform.app.test_client()
    response = client.post(path, headers=platform.ada.auth | {"Host": host})
    assert_error(response, 400, "bad_host")


def test_a_host_with_labels_of_63_characters_is_served(platform: Platform) -> None:
    response = platform.get("/", headers={"Host": f"{'a' * 63}.{'b' * 63}.example:8000"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("GET", f"/api/submissions/{PAST}", "unknown_submission"),
        ("GET", f"/api/submissions/{PAST}/events", "unknown_submission"),
        ("GET", f"/api/submissions/{PAST}/diff?against=1", "unknown_submission"),
        ("GET", "/api/submissions/1/diff?against={PAST}", "unknown_submission"),
        ("GET", f"/submissions/{PAST}", "unknown_submission"),
        ("DELETE", f"/api/tokens/{PAST}", "unknown_token"),
        ("GET", f"/api/submissions/{INT_MAX}", "unknown_submission"),
        ("GET", f"/api/submissions/{2**63}", "unknown_submission"),
    ],
)
def test_an_id_past_the_integer_column_is_a_404_on_either_store(
    platform: Platform, method: str, path: str, code: str
) -> None:
    """Regression: ids were checked against 2**63 - 1, but the columns are INTEGER, so on
    PostgreSQL 2**31 reached the query and failed with DataError (HTTP 500)."""
    path = path.format(PAST=PAST)
    response = platform.app.test_client().open(path, method=method, headers=platform.ada.auth)
    assert_error(response, 404, code)


def test_before_past_every_id_lists_everything_on_either_store(platform: Platform) -> None:
    for path in ("/api/submissions", f"/api/submissions?before={PAST}"):
        response = platform.get(path, platform.ada)
        assert response.status_code == 200, response.json
        assert [s["id"] for s in response.json["submissions"]] == [platform.sid]
    assert platform.get(f"/submissions?before={PAST}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/users/a%00b",
        "/users/a%00b",
        "/api/runs/a%00b",
        "/api/leaderboard/a%00b",
        "/leaderboard/a%00b",
        "/problems/a%00b",
        "/api/problems/a%00b",
    ],
)
def test_nul_in_a_path_parameter_is_a_404_naming_it(platform: Platform, path: str) -> None:
    """Regression: PostgreSQL refuses NUL in text, so a username or a run id holding one
    was a 500 there (SQLite stored and compared it)."""
    response = platform.get(path, platform.ada)
    assert_error(response, 404, "not_found")
    assert "NUL" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "path", ["/api/submissions?user=ada&x=a%00b", "/login?next=/a%00b", "/?lang=%00", "/?%00=1"]
)
def test_nul_in_a_query_string_is_a_400(platform: Platform, path: str) -> None:
    response = platform.get(path, platform.ada)
    assert_error(response, 400, "invalid_query")
    assert "NUL" in response.get_data(as_text=True)


def test_nul_in_a_form_or_a_json_body_is_a_400_before_it_reaches_the_store(
    platform: Platform,
) -> None:
    client = platform.app.test_client()
    page_login(client, "root")
    form = {"csrf_token": csrf_of(client), "version": "a\x00b"}
    response = client.post("/admin/problems/add-two/rejudge", data=form)
    assert_error(response, 400, "invalid_field")
    assert "version" in response.get_data(as_text=True)
    response = client.post("/login", data={"csrf_token": csrf_of(client), "username": "a\x00b"})
    assert_error(response, 400, "invalid_field")
    response = client.post(
        "/api/admin/problems/add-two/rejudge",
        json={"version": "a\x00b"},
        headers=platform.root.auth,
    )
    assert_error(response, 400, "invalid_field")
    response = client.post("/api/token", json={"username": "a\x00b", "password": "x" * 9})
    assert_error(response, 400, "invalid_field")


def _worker_tasks(app: Flask) -> Any:
    """The worker's tasks on a Celery app that never connects (calling a task runs it here)."""
    platform_state = state(app)
    celery = make_celery(platform_state.config.with_(broker_url="memory://"))
    ctx = jobs.JobContext(
        sessions=platform_state.sessions,
        problems=platform_state.catalog,
        judge_seed=platform_state.config.judge_seed,
        judge=platform_state.judge,  # type: ignore[arg-type]
        max_attempts=1,
        requeue=lambda sid, delay_s=0.0: None,
    )
    queue = CeleryQueue(celery, lambda sid: Capability.CPU)
    register_tasks(celery, ctx, queue, (Capability.CPU,))
    return celery.tasks


@pytest.mark.parametrize(
    ("task", "argument"),
    [
        (TASK_JUDGE, 10**30),
        (TASK_JUDGE, PAST),
        (TASK_JUDGE, -1),
        (TASK_JUDGE, True),
        (TASK_JUDGE, "1"),
        (TASK_RUN, "a\x00b"),
        (TASK_RUN, "x" * 33),
        (TASK_RUN, 7),
    ],
)
def test_a_forged_broker_message_is_dropped_with_one_log_line(
    platform: Platform, task: str, argument: object, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression: a judge task with the id 10**30 reached the database (DataError on
    PostgreSQL, OverflowError on SQLite) and failed with a traceback."""
    tasks = _worker_tasks(platform.app)
    with caplog.at_level(logging.INFO):
        tasks[task](argument)
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert lines[0].name == "web.judging.celery_worker" and "dropping" in lines[0].getMessage()
    assert lines[0].exc_info is None and "\n" not in lines[0].getMessage()
