"""The embedded queue and the IE retry: a retry's pause waits on a timer, never in a
judging thread (issue 14: with two workers, one sleeping retry halved the throughput)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit

from judge.grading.report import Report
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import internal_error
from judge.verdict import Verdict
from web import create_app
from web.judging import jobs
from web.judging.jobqueue import EmbeddedQueue
from web.store.models import Submission, SubmissionStatus

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_a_delayed_id_leaves_the_worker_free_for_the_others() -> None:
    order: list[int] = []
    released = threading.Event()

    def job(submission_id: int) -> None:
        order.append(submission_id)
        if submission_id == 2:
            released.set()

    queue = EmbeddedQueue(job, workers=1)
    queue.start()
    try:
        queue.enqueue(1, delay_s=0.5)
        queue.enqueue(2)
        assert released.wait(5.0)
        queue.join()  # waits for the delayed id as well
    finally:
        queue.stop()
    assert order == [2, 1]


def test_stopping_cancels_pending_delays() -> None:
    ran: list[int] = []
    queue = EmbeddedQueue(ran.append, workers=1)
    queue.start()
    queue.enqueue(7, delay_s=30.0)
    queue.stop()
    assert ran == []


class _FailsOnce:
    """A judge whose first run is an internal error (a worker died, say)."""

    def __init__(self) -> None:
        self.runs = 0

    def run(self, problem: ProblemSpec, code: str, seed: int, progress: object = None) -> Report:
        self.runs += 1
        if self.runs == 1:
            return internal_error(problem, seed, "the judge failed once")
        return Report(problem.slug, problem.version, Verdict.AC, problem.points, ())

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        return None

    def close(self) -> None:
        pass


def test_an_internal_error_is_requeued_with_a_pause_instead_of_sleeping(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    platform = state(app)
    try:
        client = app.test_client()
        sid = submit(client, make_user(client, "ada"), GOOD)
        requeued: list[tuple[int, float]] = []
        ctx = jobs.JobContext(
            sessions=platform.sessions,
            problems=platform.catalog,
            judge_seed=1,
            judge=_FailsOnce(),
            max_attempts=3,
            requeue=lambda i, delay: requeued.append((i, delay)),
            retry_delay_s=0.5,
        )
        jobs.run_job(ctx, sid)
        assert requeued == [(sid, 0.5)]  # the first try's pause, for the queue to wait out
        with platform.sessions() as db:
            assert db.get(Submission, sid).status is SubmissionStatus.QUEUED
        jobs.run_job(ctx, sid)  # a message during the pause: the row is not taken yet
        with platform.sessions() as db:
            assert db.get(Submission, sid).attempts == 1
        time.sleep(0.6)
        jobs.run_job(ctx, sid)
        with platform.sessions() as db:
            row = db.get(Submission, sid)
            assert (row.status, row.verdict, row.attempts) == (
                SubmissionStatus.DONE,
                Verdict.AC,
                2,
            )
    finally:
        platform.close()
