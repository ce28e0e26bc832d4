"""Submitting the same code again is refused (issue 12, section 1: a double-click on Submit
had stored eight identical submissions in two seconds, each one more attempt).

The rule (docs/API.md, `POST /api/submissions`): refused with `409 duplicate_submission`
when the code is exactly that of the user's latest submission to the problem and that one
is queued, running, or judged with any verdict but IE.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG, write_web_problem
from sqlalchemy import update
from test_web_api_accounts import error_of
from web_helpers import Account, make_config, make_user, state, submit, wait_judged

from web import create_app
from web.accounts.auth import Viewer
from web.attempts import submissions
from web.config import RateLimit
from web.errors import Conflict
from web.store.models import Submission, SubmissionStatus, User

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def idle(tmp_path: Path, db_template: Path, problems_root: Path, **changes: Any) -> Flask:
    """No judging workers: a submission stays queued until a test changes its row."""
    config = make_config(tmp_path, db_template, problems_root, start_workers=False, **changes)
    return create_app(config)


@pytest.fixture
def idle_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    app = idle(tmp_path, db_template, problems_root)
    yield app
    state(app).close()


def post(client: FlaskClient, who: Account, code: str, problem: str = "add-two", **kw: Any) -> Any:
    body = {"problem": problem, "code": code}
    return client.post("/api/submissions", json=body, headers={**who.auth, **kw})


def set_row(app: Flask, sid: int, **values: Any) -> None:
    with state(app).sessions() as db:
        db.execute(update(Submission).where(Submission.id == sid).values(**values))
        db.commit()


def test_the_same_code_while_the_first_is_queued_is_409_in_both_languages(
    idle_app: Flask,
) -> None:
    client = idle_app.test_client()
    ada = make_user(client, "ada")
    first = submit(client, ada, WRONG)
    again = post(client, ada, WRONG)
    assert again.status_code == 409
    error = error_of(again)
    assert (error["code"], error["field"]) == ("duplicate_submission", "code")
    assert f"submission #{first}" in error["message"] and "still being judged" in error["message"]
    zh = error_of(post(client, ada, WRONG, **ZH))
    assert f"第 {first} 号提交" in zh["message"] and "仍在评测中" in zh["message"]
    with state(idle_app).sessions() as db:
        assert db.query(Submission).count() == 1


@pytest.mark.parametrize(
    ("status", "verdict"),
    [
        (SubmissionStatus.RUNNING, None),
        (SubmissionStatus.DONE, "WA"),
        (SubmissionStatus.DONE, "AC"),
    ],
)
def test_the_same_code_while_running_or_after_a_verdict_is_refused(
    idle_app: Flask, status: SubmissionStatus, verdict: str | None
) -> None:
    client = idle_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    set_row(idle_app, sid, status=status, verdict=verdict)
    again = post(client, ada, WRONG)
    assert again.status_code == 409
    if verdict is not None:
        assert f"already judged ({verdict})" in error_of(again)["message"]


def test_the_same_code_after_an_internal_error_may_be_submitted_again(idle_app: Flask) -> None:
    client = idle_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    set_row(idle_app, sid, status=SubmissionStatus.DONE, verdict="IE")
    assert post(client, ada, WRONG).status_code == 202


def test_an_accepted_speed_run_that_was_not_scored_may_be_submitted_again(
    tmp_path: Path, db_template: Path
) -> None:
    """An unsteady speed run (timed while the machine was busy) is accepted without a score,
    and its report says "submit again": the same code must then be taken. Once a speed is
    recorded, the same code is a repeat again."""
    root = tmp_path / "problems"
    folder = write_web_problem(root, "add-fast", order=1)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text("utf-8") + '\n[speed]\nunit = "tokens/s"\n', "utf-8")
    app = idle(tmp_path, db_template, root)
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        first = submit(client, ada, GOOD, problem="add-fast")
        set_row(app, first, status=SubmissionStatus.DONE, verdict="AC", metric=None)
        second = post(client, ada, GOOD, problem="add-fast")
        assert second.status_code == 202, second.json
        set_row(app, second.json["id"], status=SubmissionStatus.DONE, verdict="AC", metric=9.5)
        third = post(client, ada, GOOD, problem="add-fast")
        assert third.status_code == 409
        assert "already judged (AC)" in error_of(third)["message"]
    finally:
        state(app).close()


def test_an_accepted_run_of_a_problem_without_speed_is_a_repeat(idle_app: Flask) -> None:
    client = idle_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    set_row(idle_app, sid, status=SubmissionStatus.DONE, verdict="AC", metric=None)
    assert post(client, ada, GOOD).status_code == 409


def test_only_the_same_code_as_the_latest_submission_to_the_problem_is_a_repeat(
    idle_app: Flask,
) -> None:
    client = idle_app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    submit(client, ada, WRONG)
    assert post(client, ada, WRONG, problem="add-more").status_code == 202  # another problem
    assert post(client, bob, WRONG).status_code == 202  # another user
    assert post(client, ada, WRONG + "\n").status_code == 202  # one character differs


def test_going_back_to_an_older_code_is_a_new_attempt(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    submit(client, ada, WRONG)
    submit(client, ada, GOOD)
    wait_judged(app)
    assert post(client, ada, WRONG).status_code == 202
    wait_judged(app)
    assert post(client, ada, WRONG).status_code == 409  # now it is the latest


def test_a_refused_repeat_is_not_counted_against_the_rate_limit(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    app = idle(tmp_path, db_template, problems_root, submit_per_user=RateLimit(2, 600.0))
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        submit(client, ada, WRONG)
        assert post(client, ada, WRONG).status_code == 409
        assert post(client, ada, GOOD).status_code == 202  # the second of two allowed
        assert post(client, ada, GOOD + "# 3\n").status_code == 429
    finally:
        state(app).close()


def test_two_identical_requests_at_once_store_one_submission(idle_app: Flask) -> None:
    """The first request holds its transaction open after its insert; the second must
    wait for it on the user's row, then see its submission and be refused. Without the
    lock the second would have checked before the first committed and stored a copy."""
    client = idle_app.test_client()
    make_user(client, "ada")
    platform = state(idle_app)
    with platform.sessions() as db:
        user = db.query(User).filter_by(username="ada").one()
        viewer = Viewer(user.id, user.username, False, True)
    inserted, go = threading.Event(), threading.Event()
    outcomes: dict[str, object] = {}

    def first() -> None:
        with idle_app.test_request_context(), platform.sessions() as db:
            commit = db.commit

            def held_commit() -> None:  # the row is inserted; hold the transaction open
                inserted.set()
                go.wait(30)
                commit()

            db.commit = held_commit  # type: ignore[method-assign]
            outcomes["first"] = submissions.create(platform, db, viewer, "add-two", WRONG, "ip")

    def second() -> None:
        with idle_app.test_request_context(), platform.sessions() as db:
            try:
                outcomes["second"] = submissions.create(
                    platform, db, viewer, "add-two", WRONG, "ip"
                )
            except Conflict as exc:
                outcomes["second"] = exc

    one = threading.Thread(target=first)
    one.start()
    assert inserted.wait(30)
    two = threading.Thread(target=second)
    two.start()
    two.join(0.5)  # time for it to reach the lock (it waits there)
    go.set()
    one.join(30)
    two.join(30)
    assert isinstance(outcomes["first"], int)
    assert isinstance(outcomes["second"], Conflict), outcomes
    with platform.sessions() as db:
        assert db.query(Submission).count() == 1
