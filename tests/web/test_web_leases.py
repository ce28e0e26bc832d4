"""Claims under a lease: a live claim is never taken, a lapsed one is taken over, and only
the claim that holds the row stores its verdict (the fencing behind at-least-once)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit

from judge.grading.report import Report
from judge.problem.spec import ProblemSpec
from judge.run.phase import Phase, Stage
from web import create_app
from web.judging import jobs
from web.judging.core_seam import Judge, Progress
from web.store.db import transaction, utcnow
from web.store.models import Judging, Standing, Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


@dataclass
class HeldJudge:
    """Delegates to the real judge once released; says how far it got before that."""

    real: Judge
    progress_to_report: Phase | None = None
    started: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def run(
        self, problem: ProblemSpec, code: str, seed: int, progress: Progress | None = None
    ) -> Report:
        if progress is not None and self.progress_to_report is not None:
            progress(self.progress_to_report)
        self.started.set()
        assert self.release.wait(60), "the test never released the judge"
        return self.real.run(problem, code, seed)

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        return None

    def close(self) -> None:
        pass


@pytest.fixture
def held_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    yield app
    state(app).close()


def _context(app: Flask, judge: Judge, worker: str, lease_s: float = 30.0) -> jobs.JobContext:
    st = state(app)
    return jobs.JobContext(
        st.sessions, st.catalog, 7, judge, 3, lambda _id, _d: None, lease_s=lease_s, worker=worker
    )


def _row(app: Flask, sid: int) -> Submission:
    with state(app).sessions() as db:
        row = db.get(Submission, sid)
        assert row is not None
        return row


def _judgings(app: Flask, sid: int) -> list[tuple[int, str | None]]:
    with state(app).sessions() as db:
        rows = db.query(Judging).filter(Judging.submission_id == sid).order_by(Judging.id)
        return [(j.attempt, j.worker) for j in rows]


def _lapse_the_lease(app: Flask, sid: int) -> None:
    with transaction(state(app).sessions) as db:
        db.get(Submission, sid).lease_until = utcnow() - timedelta(seconds=1)


def test_a_live_claim_is_not_taken_by_a_second_worker(held_app: Flask) -> None:
    client = held_app.test_client()
    sid = submit(client, make_user(client, "ada"), GOOD)
    first = HeldJudge(state(held_app).judge)
    thread = threading.Thread(target=jobs.run_job, args=(_context(held_app, first, "a"), sid))
    thread.start()
    try:
        assert first.started.wait(30)
        second = HeldJudge(state(held_app).judge)
        second.release.set()
        jobs.run_job(_context(held_app, second, "b"), sid)  # a duplicate delivery
        assert not second.started.is_set()
    finally:
        first.release.set()
        thread.join(60)
    assert _judgings(held_app, sid) == [(1, "a")]


def test_a_lapsed_claim_is_taken_over_and_the_late_verdict_is_dropped(held_app: Flask) -> None:
    client = held_app.test_client()
    sid = submit(client, make_user(client, "ada"), GOOD)
    hung = HeldJudge(state(held_app).judge)
    thread = threading.Thread(target=jobs.run_job, args=(_context(held_app, hung, "hung"), sid))
    thread.start()
    try:
        assert hung.started.wait(30)
        _lapse_the_lease(held_app, sid)  # as if the worker had stopped renewing it
        taker = HeldJudge(state(held_app).judge)
        taker.release.set()
        jobs.run_job(_context(held_app, taker, "taker"), sid)
        assert taker.started.is_set()
    finally:
        hung.release.set()  # the hung worker wakes up and tries to store its verdict
        thread.join(60)
    row = _row(held_app, sid)
    assert (row.status, row.verdict, row.attempts, row.claimed_by) == ("done", "AC", 2, "taker")
    assert _judgings(held_app, sid) == [(2, "taker")]
    with state(held_app).sessions() as db:
        assert [(s.points, s.solved) for s in db.query(Standing)] == [(100, 1)]


def test_a_running_job_renews_its_lease(held_app: Flask) -> None:
    client = held_app.test_client()
    sid = submit(client, make_user(client, "ada"), GOOD)
    slow = HeldJudge(state(held_app).judge)
    ctx = _context(held_app, slow, "a", lease_s=3.0)
    thread = threading.Thread(target=jobs.run_job, args=(ctx, sid))
    thread.start()
    try:
        assert slow.started.wait(30)
        first = _row(held_app, sid).lease_until
        deadline = time.monotonic() + 30
        while _row(held_app, sid).lease_until == first and time.monotonic() < deadline:
            time.sleep(0.2)
        renewed = _row(held_app, sid).lease_until
        assert first is not None and renewed is not None and renewed > first
    finally:
        slow.release.set()
        thread.join(60)
    assert _row(held_app, sid).lease_until is None  # released with the verdict


def test_progress_is_shown_while_running_and_cleared_with_the_verdict(held_app: Flask) -> None:
    client = held_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    slow = HeldJudge(state(held_app).judge, progress_to_report=Phase(Stage.TIMED, 3, 10, 2, 7))
    thread = threading.Thread(target=jobs.run_job, args=(_context(held_app, slow, "a"), sid))
    thread.start()
    try:
        assert slow.started.wait(30)
        deadline = time.monotonic() + 30
        view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
        while view["progress"] is None and time.monotonic() < deadline:
            time.sleep(0.1)
            view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
        progress = {"done": 3, "total": 10, "stage": "timed", "step": 2, "of": 7}
        assert (view["status"], view["progress"]) == ("running", progress)
    finally:
        slow.release.set()
        thread.join(60)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    assert (view["status"], view["progress"]) == ("done", None)


def test_a_submission_whose_claims_never_finish_is_stored_as_ie(held_app: Flask) -> None:
    client = held_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    with transaction(state(held_app).sessions) as db:  # three workers died holding it
        row = db.get(Submission, sid)
        row.status, row.tries, row.attempts = "running", 3, 3
        row.lease_until = utcnow() - timedelta(seconds=1)
    never = HeldJudge(state(held_app).judge)
    jobs.run_job(_context(held_app, never, "a"), sid)
    assert not never.started.is_set()
    row = _row(held_app, sid)
    assert (row.status, row.verdict) == ("done", "IE")
    assert "did not finish this submission after 3 tries" in (row.report_json or "")
    assert client.get(f"/api/submissions/{sid}", headers=ada.auth).json["verdict"] == "IE"
