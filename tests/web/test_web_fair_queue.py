"""Submissions are judged fairly across users (issue 36, section 2): a learner with nothing
being judged is judged next, however many submissions another learner has queued. Three
sleeping submissions from one account once made another learner's wait 311 s: the queue
was first in, first out over two judging threads."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def _times(app: Flask, sid: int) -> tuple[Any, Any]:
    """When the submission was taken, and when it was judged."""
    with transaction(state(app).sessions) as db:
        row = db.execute(
            select(Submission.started_at, Submission.judged_at).where(Submission.id == sid)
        ).one()
    return row[0], row[1]


def _queued_at(app: Flask, sid: int) -> Any:
    with transaction(state(app).sessions) as db:
        return db.scalar(select(Submission.queued_at).where(Submission.id == sid))


def _taken_first(app: Flask, late: int, backlog: list[int]) -> None:
    """`late` was taken before every row of `backlog` still waiting when it was queued,
    except the backlog's first to be taken: until that one is, both learners have nothing
    judged, and the older row goes first by right (requests arrive faster than a judging
    thread wakes, so it may be taken a moment after `late` is queued). No timing is
    assumed beyond that: however slowly the requests arrive on a busy machine."""
    queued = _queued_at(app, late)
    taken, _ = _times(app, late)
    waiting = sorted(_times(app, sid)[0] for sid in backlog)[1:]
    passed_it = [started for started in waiting if started > queued and started < taken]
    assert passed_it == [], (queued, taken, waiting)


def test_a_learner_with_nothing_judged_goes_before_anothers_backlog(app: Flask) -> None:
    client = app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    backlog = [submit(client, ada, SLOW + f"# {i}\n") for i in range(4)]
    late = submit(client, bob, GOOD)
    wait_judged(app)
    _taken_first(app, late, backlog)


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


def test_one_accounts_backlog_never_holds_every_judging_thread(app: Flask) -> None:
    """With two threads, one account's submissions are judged one at a time (the default
    judging_per_user), and another learner's submission is taken before her next."""
    client = app.test_client()
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    backlog = [submit(client, ada, SLOW + f"# {i}\n") for i in range(3)]
    late = submit(client, bob, GOOD)
    wait_judged(app)
    spans = sorted(_times(app, sid) for sid in backlog)
    for (_, ended), (started, _) in itertools.pairwise(spans):
        assert started >= ended, spans  # never two of hers at once
    _taken_first(app, late, backlog)
