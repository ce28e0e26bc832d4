"""Run on the server (torch-tier problems): POST /api/problems/<slug>/run judges the public
cases only, is never a submission, never counts, and is bounded per user, per IP and in all."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG, write_web_problem
from sqlalchemy import func, select
from test_web_api_accounts import error_of
from web_helpers import Account, make_config, make_user, state, submit, wait_judged

from judge.grading.report import Report
from judge.problem.spec import ProblemSpec
from judge.verdict import Verdict
from web import create_app
from web.config import RateLimit
from web.errors import NotFound, RateLimited
from web.judging.runs import LOST_AFTER_S, LocalRunDispatch, PublicRuns
from web.store.db import utcnow
from web.store.models import ProblemResult, Standing, Submission, User

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

TORCH = "add-torch"  # a torch-tier problem in name only: its cases need nothing but stdlib
SLOW = "import time\n\ndef add(a, b):\n    time.sleep(0.4)\n    return a + b\n"


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("run-problems")
    write_web_problem(root, "add-two", order=1)
    write_web_problem(root, TORCH, order=2, tier="torch")
    return root


def run_app(tmp_path: Path, db_template: Path, root: Path, **changes: Any) -> Flask:
    config = make_config(tmp_path, db_template, root, **changes)
    app = create_app(config)
    app.testing = True
    return app


@pytest.fixture
def app(tmp_path: Path, db_template: Path, runs_root: Path) -> Iterator[Flask]:
    app = run_app(tmp_path, db_template, runs_root)
    yield app
    state(app).close()


def start_run(
    client: FlaskClient, who: Account, code: str, slug: str = TORCH, lang: str = "en"
) -> Any:
    headers = {**who.auth, "Accept-Language": lang}
    return client.post(f"/api/problems/{slug}/run", json={"code": code}, headers=headers)


def wait_run(client: FlaskClient, who: Account, url: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view: dict[str, Any] = client.get(url, headers=who.auth).json
        if view["status"] == "done":
            return view
        time.sleep(0.05)
    raise AssertionError(f"run {url} not done after {timeout} s")


def stored_rows(app: Flask) -> tuple[int, int, int]:
    with state(app).sessions() as db:
        return tuple(  # type: ignore[return-value]
            db.scalar(select(func.count()).select_from(t)) or 0
            for t in (Submission, ProblemResult, Standing)
        )


def test_a_run_reports_every_public_case_with_values_and_stores_nothing(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    started = start_run(client, ada, WRONG)
    assert started.status_code == 202, started.json
    assert started.json["status"] == "running"
    assert started.headers["Location"] == started.json["url"]
    view = wait_run(client, ada, started.json["url"])
    report = view["report"]
    assert (view["problem"], report["verdict"], report["seed"]) == (TORCH, "WA", "public")
    assert report["total"] == 5  # two public cases and the public seed's three generated
    assert all(case["public"] for case in report["cases"])
    failed = [c for c in report["cases"] if c["verdict"] == "WA"]
    assert failed and all("got" in c and "expected" in c for c in failed)
    assert "internal_error" not in report
    assert stored_rows(app) == (0, 0, 0)
    assert client.get("/api/leaderboard").json["entries"] == []
    assert client.get(f"/api/leaderboard/{TORCH}").json["entries"] == []
    mine = client.get("/api/submissions?user=ada").json["submissions"]
    assert mine == []


def test_a_failed_run_is_no_penalty_on_a_later_accepted_submission(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    for code in (WRONG, GOOD):
        wait_run(client, ada, start_run(client, ada, code).json["url"])
    submit(client, ada, GOOD, problem=TORCH)
    wait_judged(app)
    (entry,) = client.get("/api/leaderboard").json["entries"]
    assert (entry["solved"], entry["penalty"]) == (1, 0)
    (board,) = client.get(f"/api/leaderboard/{TORCH}").json["entries"]
    assert board["attempts"] == 1  # the submission only; runs are not attempts


def test_one_run_per_user_at_a_time_and_one_in_all_by_default(
    app: Flask, client: FlaskClient
) -> None:
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    first = start_run(client, ada, SLOW)
    assert first.status_code == 202
    again = start_run(client, ada, GOOD)
    assert again.status_code == 429
    assert error_of(again)["code"] == "run_in_progress"
    assert "still being judged" in error_of(again)["message"]
    assert int(again.headers["Retry-After"]) >= 1
    other = start_run(client, bob, GOOD, lang="zh")
    assert other.status_code == 429
    assert error_of(other)["code"] == "runs_busy"
    assert "服务器正在运行其他同学的代码" in error_of(other)["message"]
    assert wait_run(client, ada, first.json["url"])["report"]["verdict"] == "AC"
    assert start_run(client, bob, GOOD).status_code == 202  # the slot is free again


def test_runs_are_rate_limited_per_user_and_refusals_for_a_busy_slot_are_free(
    tmp_path: Path, db_template: Path, runs_root: Path
) -> None:
    app = run_app(tmp_path, db_template, runs_root, run_per_user=RateLimit(2, 60.0))
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        first = start_run(client, ada, SLOW)
        assert start_run(client, ada, GOOD).status_code == 429  # busy: not counted
        wait_run(client, ada, first.json["url"])
        second = start_run(client, ada, GOOD)
        assert second.status_code == 202
        wait_run(client, ada, second.json["url"])
        third = start_run(client, ada, GOOD)
        assert third.status_code == 429
        error = error_of(third)
        assert error["code"] == "rate_limited"
        assert "too many runs on the server: at most 2 per minute" in error["message"]
        assert error["retry_after"] >= 1
    finally:
        state(app).close()


def test_runs_are_rate_limited_per_ip_across_users(
    tmp_path: Path, db_template: Path, runs_root: Path
) -> None:
    app = run_app(tmp_path, db_template, runs_root, run_per_ip=RateLimit(1, 60.0))
    try:
        client = app.test_client()
        ada, bob = make_user(client, "ada"), make_user(client, "bob")
        wait_run(client, ada, start_run(client, ada, GOOD).json["url"])
        blocked = start_run(client, bob, GOOD)
        assert blocked.status_code == 429
        assert "from this IP" in error_of(blocked)["message"]
    finally:
        state(app).close()


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        (b"not json", 415, "unsupported_media_type", None),
        (b"{nope", 400, "malformed_json", None),
        (b"[]", 400, "malformed_json", None),
        (b"{}", 400, "missing_field", "code"),
        (b'{"code": 42}', 400, "invalid_field", "code"),
        (b'{"code": "x = 1\\u0000"}', 400, "invalid_code", "code"),
        (b'{"code": "x = \'\\ud800\'"}', 400, "invalid_code", "code"),
        (b'{"code": "  \\n"}', 400, "invalid_code", "code"),
        (b'{"code": "x = 1\\n' + b"#" * 70_000 + b'"}', 400, "invalid_code", "code"),
    ],
)
def test_bad_bodies_get_a_precise_4xx(
    app: Flask,
    client: FlaskClient,
    body: bytes,
    status: int,
    code: str,
    field: str | None,
) -> None:
    ada = make_user(client, "ada")
    kind = "text/plain" if body == b"not json" else "application/json"
    response = client.post(
        f"/api/problems/{TORCH}/run", data=body, content_type=kind, headers=ada.auth
    )
    assert response.status_code == status, response.json
    error = error_of(response)
    assert (error["code"], error.get("field")) == (code, field)
    assert stored_rows(app) == (0, 0, 0)


@pytest.mark.parametrize(
    ("code", "en", "zh"),
    [
        ("x = 1\0", "the code contains a NUL byte at offset 5", "代码在偏移 5 处含有 NUL 字节"),
        ("x = '\ud800'", "not valid UTF-8", "不是有效的 UTF-8"),
        ("x = 1\n" + "#" * 70_000, "the limit is 65,536 bytes", "上限是 65,536 字节"),
        ("\n", "the code is empty", "代码为空"),
    ],
)
def test_invalid_code_is_explained_in_both_languages(
    client: FlaskClient, code: str, en: str, zh: str
) -> None:
    ada = make_user(client, "ada")
    for lang, text in (("en", en), ("zh", zh)):
        assert text in error_of(start_run(client, ada, code, lang=lang))["message"]


def test_unknown_hidden_and_browser_problems_are_refused(client: FlaskClient) -> None:
    root, ada = make_user(client, "root", admin=True), make_user(client, "ada")
    unknown = start_run(client, ada, GOOD, slug="add-torhc")
    assert (unknown.status_code, error_of(unknown)["code"]) == (404, "unknown_problem")
    assert "did you mean 'add-torch'" in error_of(unknown)["message"]
    browser = start_run(client, ada, GOOD, slug="add-two")
    assert (browser.status_code, error_of(browser)["code"]) == (400, "runs_in_browser")
    assert "runs in your browser" in error_of(browser)["message"]
    zh = start_run(client, ada, GOOD, slug="add-two", lang="zh")
    assert "在你的浏览器里运行" in error_of(zh)["message"]
    hide = client.post(
        f"/api/admin/problems/{TORCH}/hidden", json={"hidden": True}, headers=root.auth
    )
    assert hide.status_code == 200, hide.json
    hidden = start_run(client, ada, GOOD)
    assert (hidden.status_code, error_of(hidden)["code"]) == (404, "unknown_problem")


def test_runs_need_a_user_and_are_seen_only_by_their_owner(client: FlaskClient) -> None:
    anonymous = client.post(f"/api/problems/{TORCH}/run", json={"code": GOOD})
    assert (anonymous.status_code, error_of(anonymous)["code"]) == (401, "login_required")
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    url = start_run(client, ada, GOOD).json["url"]
    wait_run(client, ada, url)
    for headers in (bob.auth, {}):
        response = client.get(url, headers=headers)
        assert response.status_code in (401, 404)
        assert error_of(response)["code"] in ("unknown_run", "login_required")
    unknown = client.get("/api/runs/nope", headers=ada.auth)
    assert (unknown.status_code, error_of(unknown)["code"]) == (404, "unknown_run")


class GatedJudge:
    """A judge that holds each run until the test opens the gate (typed seam, no child)."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def run(self, problem: ProblemSpec, code: str, seed: int, progress: object = None) -> Report:
        self.gate.wait(10)
        return Report(problem.slug, problem.version, Verdict.AC, 0, (), seed="public")

    def close(self) -> None:
        pass


def test_runs_keep_one_report_per_user_and_forget_it_after_keep_s(app: Flask) -> None:
    st = state(app)
    problem = st.catalog.get(TORCH)
    client = app.test_client()
    ids = [_user_id(app, make_user(client, name).username) for name in ("ada", "bob", "cyd")]
    judge, now = GatedJudge(), [utcnow()]
    dispatch = LocalRunDispatch(st.sessions, st.catalog.get, judge, 2)
    runs = PublicRuns(st.sessions, dispatch, 2, keep_s=60.0, clock=lambda: now[0])
    try:
        first = runs.start(ids[0], problem, GOOD)
        runs.start(ids[1], problem, GOOD)
        with pytest.raises(RateLimited) as busy:
            runs.start(ids[2], problem, GOOD)
        assert busy.value.code == "runs_busy"
        judge.gate.set()
        while runs.running():
            time.sleep(0.01)
        assert runs.get(ids[0], first["id"])["report"]["verdict"] == "AC"
        with pytest.raises(NotFound):
            runs.get(ids[1], first["id"])  # someone else's
        second = runs.start(ids[0], problem, GOOD)
        with pytest.raises(NotFound):
            runs.get(ids[0], first["id"])  # replaced by the user's new run
        while runs.running():
            time.sleep(0.01)
        now[0] += timedelta(seconds=61)
        with pytest.raises(NotFound):
            runs.get(ids[0], second["id"])  # forgotten after keep_s
    finally:
        judge.gate.set()
        runs.close()


def test_a_run_whose_judge_vanished_is_reported_lost_and_frees_its_slot(app: Flask) -> None:
    st = state(app)
    problem = st.catalog.get(TORCH)
    client = app.test_client()
    ada, bob = (_user_id(app, make_user(client, n).username) for n in ("ada", "bob"))
    now = [utcnow()]

    class Nowhere:  # a dispatch whose worker dies with the run: nothing ever judges it
        def send(self, run_id: str, problem: ProblemSpec) -> None:
            pass

        def close(self) -> None:
            pass

    runs = PublicRuns(st.sessions, Nowhere(), 1, keep_s=600.0, clock=lambda: now[0])
    lost = runs.start(ada, problem, GOOD)
    with pytest.raises(RateLimited):
        runs.start(bob, problem, GOOD)
    now[0] += timedelta(seconds=problem.limits.total_time_s + LOST_AFTER_S + 1)
    view = runs.get(ada, lost["id"])
    assert view["status"] == "done" and view["report"]["verdict"] == "IE"
    assert "internal_error" not in view["report"]  # the learner's view: no admin detail
    runs.start(bob, problem, GOOD)  # the slot is free again


def _user_id(app: Flask, username: str) -> int:
    with state(app).sessions() as db:
        user_id = db.scalar(select(User.id).where(User.username == username))
    assert user_id is not None
    return int(user_id)
