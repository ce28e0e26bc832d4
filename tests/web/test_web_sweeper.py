"""The sweeper: rows whose claim lapsed go back to the queue, rows queued too long (their
message lost) are sent again, and everything else is left alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit

from web import create_app
from web.judging.sweeper import Sweeper
from web.store.db import transaction, utcnow
from web.store.models import Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


class Sent:
    def __init__(self) -> None:
        self.ids: list[int] = []

    def enqueue(self, submission_id: int, delay_s: float = 0.0) -> None:
        self.ids.append(submission_id)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


@pytest.fixture
def idle_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    yield app
    state(app).close()


def _rows(app: Flask, count: int) -> list[int]:
    client = app.test_client()
    ada = make_user(client, "ada")
    return [submit(client, ada, GOOD + f"\n# {n}\n") for n in range(count)]


def _set(app: Flask, sid: int, **values: object) -> None:
    with transaction(state(app).sessions) as db:
        row = db.get(Submission, sid)
        for key, value in values.items():
            setattr(row, key, value)


def test_a_lapsed_claim_goes_back_to_the_queue_and_is_sent_again(idle_app: Flask) -> None:
    lapsed, live, fresh, stale = _rows(idle_app, 4)
    past, future = utcnow() - timedelta(seconds=5), utcnow() + timedelta(seconds=60)
    _set(idle_app, lapsed, status="running", lease_until=past, attempts=1)
    _set(idle_app, live, status="running", lease_until=future, attempts=1)
    _set(idle_app, stale, queued_at=utcnow() - timedelta(seconds=120))
    sent = Sent()
    assert Sweeper(state(idle_app).sessions, sent, 60.0, 1.0).sweep() == [lapsed, stale]
    assert sent.ids == [lapsed, stale]
    with state(idle_app).sessions() as db:
        rows = {sid: db.get(Submission, sid) for sid in (lapsed, live, fresh, stale)}
        assert (rows[lapsed].status, rows[lapsed].lease_until) == ("queued", None)
        assert rows[live].status == "running"
        assert rows[fresh].status == "queued"


def test_a_row_sent_again_is_not_sent_on_every_sweep(idle_app: Flask) -> None:
    (stale,) = _rows(idle_app, 1)
    _set(idle_app, stale, queued_at=utcnow() - timedelta(seconds=120))
    sweeper = Sweeper(state(idle_app).sessions, Sent(), 60.0, 1.0)
    assert sweeper.sweep() == [stale]
    assert sweeper.sweep() == []  # dated anew: next time in a minute, if still not taken


def test_a_sweep_with_nothing_lost_sends_nothing(idle_app: Flask) -> None:
    _rows(idle_app, 3)
    sent = Sent()
    assert Sweeper(state(idle_app).sessions, sent, 60.0, 1.0).sweep() == []
    assert sent.ids == []
