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
from sqlalchemy import func, select, update
from test_web_api_accounts import error_of
from web_helpers import Account, make_config, make_user, state, submit, wait_judged

import web.judging.runs
from judge.grading.report import Report
from judge.problem.spec import ProblemSpec
from judge.run.phase import Phase, Stage
from judge.verdict import Verdict
from web import create_app
from web.config import RateLimit
from web.errors import NotFound, RateLimited
from web.judging.runs import LOST_AFTER_S, RUN_LEASE_S, LocalRunDispatch, PublicRuns
from web.store.db import transaction, utcnow
from web.store.models import ProblemResult, PublicRun, Standing, Submission, User

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


def test_one_run_per_learner_and_two_at_once_the_next_waits_in_line_with_its_place(
    app: Flask, client: FlaskClient
) -> None:
    """Issue 36, section 1: one account's run no longer holds everyone's. Two slots by
    default, one run per learner (running or waiting); a third learner waits in line, sees
    their place, and is judged once a slot frees."""
    ada, bob, cyd = (make_user(client, name) for name in ("ada", "bob", "cyd"))
    first = start_run(client, ada, SLOW)
    assert first.status_code == 202 and first.json["status"] == "running"
    again = start_run(client, ada, GOOD)
    assert again.status_code == 429
    assert error_of(again)["code"] == "run_in_progress"
    assert "still being judged" in error_of(again)["message"]
    assert int(again.headers["Retry-After"]) >= 1
    second = start_run(client, bob, SLOW)
    assert second.status_code == 202 and second.json["status"] == "running"
    third = start_run(client, cyd, GOOD, lang="zh")
    assert third.status_code == 202, third.json
    assert (third.json["status"], third.json["place"]) == ("queued", 1)
    assert start_run(client, cyd, GOOD).status_code == 429  # still one per learner
    assert wait_run(client, cyd, third.json["url"])["report"]["verdict"] == "AC"
    for who, run in ((ada, first), (bob, second)):
        assert wait_run(client, who, run.json["url"])["report"]["verdict"] == "AC"


def test_a_full_line_is_refused_at_once_and_costs_nothing(
    tmp_path: Path, db_template: Path, runs_root: Path
) -> None:
    app = run_app(tmp_path, db_template, runs_root, run_slots=1, run_waiting=1)
    try:
        client = app.test_client()
        ada, bob, cyd = (make_user(client, name) for name in ("ada", "bob", "cyd"))
        running = start_run(client, ada, SLOW)
        waiting = start_run(client, bob, GOOD)
        assert waiting.json["place"] == 1
        full = start_run(client, cyd, GOOD, lang="zh")
        assert full.status_code == 429
        assert error_of(full)["code"] == "runs_busy"
        assert "排队也已满" in error_of(full)["message"]
        for who, run in ((ada, running), (bob, waiting)):
            assert wait_run(client, who, run.json["url"])["status"] == "done"
        assert start_run(client, cyd, GOOD).status_code == 202  # the refusal was not counted
    finally:
        state(app).close()


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

    def run(self, problem: ProblemSpec, code: str, seed: int, progress: Any = None) -> Report:
        if progress is not None:  # where a judging of twelve cases has got to
            progress(Phase(Stage.CASE, 2, 12, 3, 12))
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
    runs = PublicRuns(st.sessions, dispatch, 2, waiting=0, keep_s=60.0, clock=lambda: now[0])
    try:
        first = runs.start(ids[0], problem, GOOD)
        runs.start(ids[1], problem, GOOD)
        with pytest.raises(RateLimited) as busy:
            runs.start(ids[2], problem, GOOD)  # no room in line (waiting=0)
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


def test_a_run_nobody_took_is_reported_lost_and_the_next_in_line_starts(app: Flask) -> None:
    st = state(app)
    problem = st.catalog.get(TORCH)
    client = app.test_client()
    ada, bob = (_user_id(app, make_user(client, n).username) for n in ("ada", "bob"))
    now = [utcnow()]
    sent: list[str] = []

    class Nowhere:  # a dispatch whose worker dies with the run: nothing ever judges it
        def send(self, run_id: str, problem: ProblemSpec) -> None:
            sent.append(run_id)

        def close(self) -> None:
            pass

    runs = PublicRuns(
        st.sessions, Nowhere(), 1, problems=st.catalog.get, keep_s=600.0, clock=lambda: now[0]
    )
    lost = runs.start(ada, problem, GOOD)
    waiting = runs.start(bob, problem, GOOD)
    assert (waiting["status"], waiting["place"]) == ("queued", 1)
    now[0] += timedelta(seconds=problem.limits.total_time_s + LOST_AFTER_S + 1)
    view = runs.get(ada, lost["id"])
    assert view["status"] == "done" and view["report"]["verdict"] == "IE"
    assert "internal_error" not in view["report"]  # the learner's view: no admin detail
    assert runs.get(bob, waiting["id"])["status"] == "running"  # moved up: the slot is free
    assert sent == [lost["id"], waiting["id"]]


def test_a_run_whose_worker_died_frees_its_slot_within_its_lease(app: Flask) -> None:
    """Issue 36, section 3: a killed worker held the run slot for minutes (its problem's
    time limit plus two); a taken run holds it under a lease its worker renews, so a dead
    worker's run is lost, and its slot free, within RUN_LEASE_S."""
    st = state(app)
    problem = st.catalog.get(TORCH)
    client = app.test_client()
    ada, bob = (_user_id(app, make_user(client, n).username) for n in ("ada", "bob"))
    now = [utcnow()]

    class Taken:  # taken by a worker at once, which then dies: its lease is never renewed
        def send(self, run_id: str, problem: ProblemSpec) -> None:
            with transaction(st.sessions) as db:
                db.execute(
                    update(PublicRun)
                    .where(PublicRun.id == run_id)
                    .values(
                        claimed_by="worker-killed",
                        expires_at=now[0] + timedelta(seconds=RUN_LEASE_S),
                    )
                )

        def close(self) -> None:
            pass

    runs = PublicRuns(st.sessions, Taken(), 1, problems=st.catalog.get, clock=lambda: now[0])
    dead = runs.start(ada, problem, GOOD)
    assert runs.start(bob, problem, GOOD)["status"] == "queued"
    now[0] += timedelta(seconds=RUN_LEASE_S + 1)
    view = runs.get(ada, dead["id"])
    assert view["status"] == "done" and view["report"]["verdict"] == "IE"
    assert runs.running() == 1  # bob's, moved into the freed slot


def test_a_run_being_judged_keeps_its_slot_past_its_lease(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lease is renewed while the run is judged: a run longer than its lease is not
    taken for lost (its worker is alive)."""
    lease_s = 6.0  # renewed every third of it, by a keeper that wakes each second
    monkeypatch.setattr(web.judging.runs, "RUN_LEASE_S", lease_s)
    st = state(app)
    problem = st.catalog.get(TORCH)
    client = app.test_client()
    ada = _user_id(app, make_user(client, "ada").username)
    judge = GatedJudge()
    dispatch = LocalRunDispatch(st.sessions, st.catalog.get, judge, 1)
    runs = PublicRuns(st.sessions, dispatch, 1, problems=st.catalog.get)
    try:
        run = runs.start(ada, problem, GOOD)
        time.sleep(lease_s * 1.5)
        assert runs.get(ada, run["id"])["status"] == "running"
        judge.gate.set()
        while runs.running():
            time.sleep(0.01)
        assert runs.get(ada, run["id"])["report"]["verdict"] == "AC"
    finally:
        judge.gate.set()
        runs.close()


def _user_id(app: Flask, username: str) -> int:
    with state(app).sessions() as db:
        user_id = db.scalar(select(User.id).where(User.username == username))
    assert user_id is not None
    return int(user_id)


def test_a_run_shows_where_its_judging_has_got_to_as_a_submission_does(app: Flask) -> None:
    """Issue 37: a torch Run showed one fixed line until it ended; its worker writes the
    phase with its lease, and a poll shows it (the page says "case 3 of 12")."""
    st = state(app)
    problem = st.catalog.get(TORCH)
    ada = _user_id(app, make_user(app.test_client(), "ada").username)
    judge = GatedJudge()
    dispatch = LocalRunDispatch(st.sessions, st.catalog.get, judge, 1)
    runs = PublicRuns(st.sessions, dispatch, 1, problems=st.catalog.get)
    try:
        run = runs.start(ada, problem, GOOD)
        deadline = time.monotonic() + 30
        while "progress" not in (seen := runs.get(ada, run["id"])):
            assert time.monotonic() < deadline, seen
            time.sleep(0.05)
        assert seen["status"] == "running"
        assert seen["progress"] == {"stage": "case", "done": 2, "total": 12, "step": 3, "of": 12}
        judge.gate.set()
        while runs.get(ada, run["id"])["status"] != "done":
            time.sleep(0.02)
        assert "progress" not in runs.get(ada, run["id"])
    finally:
        judge.gate.set()
        runs.close()
