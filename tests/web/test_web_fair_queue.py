"""Submissions are judged fairly across users (issue 36, section 2): a learner with nothing
being judged is judged next, however many submissions another learner has queued. Three
sleeping submissions from one account once made another learner's wait 311 s: the queue
was first in, first out over two judging threads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from problem_factory import GOOD
from sqlalchemy import select
from web_helpers import make_config, make_user, state, submit, wait_judged

from web import create_app
from web.store.db import transaction
from web.store.models import Submission

# What it asserts rests on the database (the claim's SQL): it runs on PostgreSQL too.
pytestmark = pytest.mark.database

SLOW = "import time\n\ndef add(a, b):\n    time.sleep(0.25)\n    return a + b\n"


@pytest.fixture
def app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    app = create_app(make_config(tmp_path, db_template, problems_root, workers=2))
    yield app
    state(app).close()


def _times(app: Flask, sid: int) -> tuple[object, object]:
    with transaction(state(app).sessions) as db:
        row = db.execute(
            select(Submission.started_at, Submission.judged_at).where(Submission.id == sid)
        ).one()
    return row[0], row[1]


def test_a_learner_with_nothing_judged_goes_before_anothers_backlog(app: Flask) -> None:
    client = app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    backlog = [submit(client, ada, SLOW + f"# {i}\n") for i in range(4)]
    late = submit(client, bob, GOOD)
    wait_judged(app)
    bob_started, _ = _times(app, late)
    started = sorted(_times(app, sid)[0] for sid in backlog)
    # Two threads: ada's first two were taken at once; bob's, queued behind her other
    # two, is taken before either of them.
    assert bob_started < started[2], (bob_started, started)


def test_each_queued_submission_is_judged_once_whichever_message_took_it(app: Flask) -> None:
    client = app.test_client()
    users = [make_user(client, name) for name in ("ann", "ben", "cat")]
    ids = [submit(client, user, GOOD + f"# {i}\n") for i in range(3) for user in users]
    wait_judged(app)
    with transaction(state(app).sessions) as db:
        rows = db.execute(
            select(Submission.status, Submission.attempts).where(Submission.id.in_(ids))
        ).all()
    assert [(str(status), attempts) for status, attempts in rows] == [("done", 1)] * len(ids)
