"""Leaderboards: ordering rules, penalties, last improvement, the speed board."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_user, state

from web.boards import standings
from web.store.db import transaction
from web.store.models import Submission, User

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

T0 = datetime(2026, 11, 1, 12, 0, 0)


def judged(
    app: Flask,
    username: str,
    verdict: str,
    minute: int,
    *,
    slug: str = "add-two",
    metric: float | None = None,
    spread: float | None = None,
    hardware: str | None = None,
    q1: float | None = None,
    q3: float | None = None,
    device_class: str = "cpu",
) -> None:
    """Store a judged submission directly, as a worker would, and refresh the standings."""
    with transaction(state(app).sessions) as db:
        user = db.query(User).filter_by(username=username).one()
        db.add(
            Submission(
                user_id=user.id,
                problem_slug=slug,
                code="pass",
                status="done",
                verdict=verdict,
                points=100 if verdict == "AC" else 0,
                created_at=T0 + timedelta(minutes=minute),
                metric=metric,
                metric_spread=spread,
                metric_q1=q1,
                metric_q3=q3,
                metric_unit="tokens/s" if metric is not None else None,
                hardware=hardware,
                device_class=device_class,
            )
        )
        db.flush()
        standings.refresh(db, user.id, slug)


def board(client: FlaskClient) -> list[tuple[str, int, int, int]]:
    entries = client.get("/api/leaderboard").json["entries"]
    return [(e["user"], e["points"], e["solved"], e["penalty"]) for e in entries]


def test_order_is_points_then_penalty_then_earliest_last_improvement(
    app: Flask, client: FlaskClient
) -> None:
    for name in ("alice", "bob", "carol", "dave", "erin"):
        make_user(client, name)
    judged(app, "alice", "WA", 1)
    judged(app, "alice", "AC", 10)
    judged(app, "bob", "AC", 5)
    judged(app, "carol", "AC", 20)
    judged(app, "dave", "AC", 30)
    judged(app, "dave", "AC", 31, slug="add-more")
    judged(app, "erin", "WA", 2)
    assert board(client) == [
        ("dave", 200, 2, 0),
        ("bob", 100, 1, 0),
        ("carol", 100, 1, 0),
        ("alice", 100, 1, 1),
        ("erin", 0, 0, 0),
    ]
    first = client.get("/api/leaderboard").json["entries"][0]
    assert first["rank"] == 1
    assert first["last_improved_at"] == "2026-11-01T12:31:00.000Z"


def test_an_equal_score_later_is_not_an_improvement(app: Flask, client: FlaskClient) -> None:
    make_user(client, "bob")
    make_user(client, "carol")
    judged(app, "bob", "AC", 5)
    judged(app, "carol", "AC", 6)
    judged(app, "bob", "AC", 50)  # resubmitting does not move bob behind carol
    assert [e[0] for e in board(client)] == ["bob", "carol"]


def test_compile_errors_and_internal_errors_cost_no_penalty(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    judged(app, "ada", "CE", 1)
    judged(app, "ada", "IE", 2)
    judged(app, "ada", "TLE", 3)
    judged(app, "ada", "AC", 4)
    judged(app, "ada", "WA", 5)  # after solving: no penalty either
    assert board(client) == [("ada", 100, 1, 1)]
    per_problem = client.get("/api/leaderboard/add-two").json["entries"]
    assert per_problem[0]["attempts"] == 4  # IE is the judge's failure, not an attempt


def test_leaderboard_pages_with_limit_and_offset(app: Flask, client: FlaskClient) -> None:
    for i, name in enumerate(("user1", "user2", "user3")):
        make_user(client, name)
        judged(app, name, "AC", i)
    page = client.get("/api/leaderboard?limit=2&offset=1").json
    assert page["total"] == 3
    assert [(e["rank"], e["user"]) for e in page["entries"]] == [(2, "user2"), (3, "user3")]
    assert client.get("/api/leaderboard?limit=0").status_code == 400


def test_speed_board_keeps_each_users_best_accepted_run(app: Flask, client: FlaskClient) -> None:
    make_user(client, "ada")
    make_user(client, "bob")
    judged(app, "ada", "AC", 1, metric=120.0, q1=118.0, q3=121.0, hardware="cpu-a")
    judged(app, "ada", "AC", 2, metric=180.5, q1=178.0, q3=182.5, hardware="gpu-b")
    judged(app, "bob", "AC", 3, metric=150.0, q1=149.5, q3=150.5, hardware="cpu-a")
    judged(app, "bob", "WA", 4, metric=999.0)  # a wrong run's speed never counts
    speed = client.get("/api/leaderboard/add-two").json["speed"][0]["entries"]
    assert [(s["user"], s["value"], s["unit"], s["iqr"], s["hardware"]) for s in speed] == [
        ("ada", 180.5, "tokens/s", 4.5, "gpu-b"),
        ("bob", 150.0, "tokens/s", 1.0, "cpu-a"),
    ]
    assert [(s["rank"], s["q1"], s["q3"]) for s in speed] == [(1, 178.0, 182.5), (2, 149.5, 150.5)]


def test_speed_scores_whose_ranges_overlap_share_a_rank(app: Flask, client: FlaskClient) -> None:
    """rank = 1 + the number of entries whose q1 is above this entry's q3."""
    runs = {  # user: (median, q1, q3)
        "ada": (200.0, 190.0, 210.0),
        "bob": (195.0, 185.0, 205.0),  # overlaps ada: shares rank 1
        "cyd": (180.0, 170.0, 189.0),  # below ada's q1 (190), within bob's range: rank 2
        "dee": (150.0, 149.0, 151.0),  # below all three: rank 4
        "eve": (150.0, None, None),  # stored without quartiles: the score alone; ties dee
    }
    for minute, (name, (median, q1, q3)) in enumerate(runs.items()):
        make_user(client, name)
        judged(app, name, "AC", minute, metric=median, q1=q1, q3=q3)
    speed = client.get("/api/leaderboard/add-two").json["speed"][0]["entries"]
    assert [(s["user"], s["rank"]) for s in speed] == [
        ("ada", 1),
        ("bob", 1),
        ("cyd", 2),
        ("dee", 4),
        ("eve", 4),
    ]
    assert speed[-1]["iqr"] == 0.0


H200 = "gpu:NVIDIA H200"


def test_each_device_class_has_a_board_of_its_own_cpu_first(
    app: Flask, client: FlaskClient
) -> None:
    """Issue 21: a GPU score never ranks beside a CPU score. ada's GPU run is far faster
    than bob's CPU run, yet bob is first on the CPU board, and ada's CPU run ranks there."""
    for name in ("ada", "bob", "cyd"):
        make_user(client, name)
    judged(app, "ada", "AC", 1, metric=9000.0, q1=8900.0, q3=9100.0, device_class=H200)
    judged(app, "ada", "AC", 2, metric=100.0, q1=99.0, q3=101.0)
    judged(app, "bob", "AC", 3, metric=150.0, q1=149.0, q3=151.0)
    judged(app, "cyd", "AC", 4, metric=8000.0, q1=7900.0, q3=8100.0, device_class=H200)
    boards = client.get("/api/leaderboard/add-two").json["speed"]
    assert [(b["device_class"], b["title"]) for b in boards] == [
        ("cpu", "CPU"),
        (H200, "GPU · NVIDIA H200"),
    ]
    cpu, gpu = ([(e["rank"], e["user"], e["value"]) for e in b["entries"]] for b in boards)
    assert cpu == [(1, "bob", 150.0), (2, "ada", 100.0)]
    assert gpu == [(1, "ada", 9000.0), (2, "cyd", 8000.0)]


def test_a_gpu_run_never_replaces_a_users_cpu_best_and_a_rejudge_moves_it(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    judged(app, "ada", "AC", 1, metric=100.0)
    judged(app, "ada", "AC", 2, metric=5000.0, device_class=H200)
    judged(app, "ada", "AC", 3, metric=90.0)  # slower on the CPU: the CPU best stays
    boards = client.get("/api/leaderboard/add-two").json["speed"]
    assert [[e["value"] for e in b["entries"]] for b in boards] == [[100.0], [5000.0]]


def test_each_gpu_model_is_a_board_of_its_own(app: Flask, client: FlaskClient) -> None:
    make_user(client, "ada")
    make_user(client, "bob")
    judged(app, "ada", "AC", 1, metric=900.0, device_class="gpu:NVIDIA A100")
    judged(app, "bob", "AC", 2, metric=800.0, device_class=H200)
    boards = client.get("/api/leaderboard/add-two").json["speed"]
    assert [b["title"] for b in boards] == ["GPU · NVIDIA A100", "GPU · NVIDIA H200"]
    assert all(b["entries"][0]["rank"] == 1 for b in boards)


def test_a_problem_with_no_timed_run_has_no_board_in_the_api(client: FlaskClient) -> None:
    assert client.get("/api/leaderboard/add-two").json["speed"] == []


def test_the_page_draws_one_table_per_device_class_under_its_heading(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    make_user(client, "bob")
    judged(app, "ada", "AC", 1, metric=150.0, hardware="AMD EPYC · 1 thread")
    judged(app, "bob", "AC", 2, metric=9000.0, hardware="NVIDIA H200", device_class=H200)
    for url in ("/leaderboard/add-two", "/problems/add-two"):
        page = client.get(url).get_data(as_text=True)
        cpu = page.index('id="speed-board"')
        gpu = page.index('id="speed-board-2"')
        assert 'data-device-class="cpu"' in page[cpu : cpu + 200], url
        assert "GPU · NVIDIA H200" in page[cpu:gpu], url  # the GPU board's heading
        assert 'data-user="ada"' in page[cpu:gpu] and 'data-user="bob"' not in page[cpu:gpu]
        assert 'data-user="bob"' in page[gpu:] and 'data-user="ada"' not in page[gpu:]


def test_per_problem_board_for_an_unknown_problem_is_404(client: FlaskClient) -> None:
    assert client.get("/api/leaderboard/nope").status_code == 404
