"""A user's profile page and API (solved problems, submission count, overall rank, results
per problem), linked from the nav and from every board; per-problem boards are linked from
the problem page and the overall board."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG
from test_web_leaderboard import judged
from web_helpers import make_user, page_login, submit, wait_judged

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_the_profile_shows_solved_problems_submissions_and_rank(
    app: Flask, client: FlaskClient
) -> None:
    alice, bob = make_user(client, "alice"), make_user(client, "bob")
    submit(client, alice, WRONG)
    submit(client, alice, GOOD)
    submit(client, alice, GOOD, problem="add-more")
    submit(client, bob, GOOD)
    wait_judged(app)

    mine = client.get("/api/users/alice").json
    assert mine["rank"] == 1 and mine["solved"] == ["add-more", "add-two"]
    assert mine["submissions"] == 3 and mine["points"] == 200
    by_problem = {r["problem"]: r for r in mine["results"]}
    assert by_problem["add-two"]["attempts"] == 2 and by_problem["add-two"]["solved"] is True
    assert client.get("/api/users/bob").json["rank"] == 2

    page = client.get("/users/alice").get_data(as_text=True)
    assert 'id="profile-rank"><a href="/leaderboard?offset=0">#1</a>' in page
    assert "Add two numbers add-two" in page and "/leaderboard/add-more" in page


def test_the_solved_list_is_newest_first_and_shows_the_best_speed(
    app: Flask, client: FlaskClient
) -> None:
    """Pins the issue's fault: the solved list was in slug order and had no speed result."""
    make_user(client, "ada")
    judged(app, "ada", "AC", 1, slug="add-more")
    judged(app, "ada", "WA", 3)
    judged(app, "ada", "AC", 5, metric=150.0, q1=149.0, q3=151.0)
    judged(app, "ada", "AC", 7, metric=183.2, q1=180.0, q3=185.5)
    judged(app, "ada", "AC", 9, slug="add-more")  # solving again does not move it up

    mine = client.get("/api/users/ada").json
    assert mine["solved"] == ["add-two", "add-more"]
    by_problem = {r["problem"]: r for r in mine["results"]}
    assert by_problem["add-two"]["solved_at"].startswith("2026-11-01T12:05:00")
    assert by_problem["add-two"]["speed"] == {"value": 183.2, "unit": "tokens/s"}
    assert by_problem["add-more"]["speed"] is None

    for lang in ("en", "zh"):
        page = client.get("/users/ada", headers={"Accept-Language": lang}).get_data(as_text=True)
        solved = page[page.index('id="profile-solved"') : page.index('id="profile-submissions"')]
        assert solved.index("/problems/add-two") < solved.index("/problems/add-more")
        assert "(183.2 tokens/s)" in solved and solved.count("profile-speed") == 1


def test_a_user_without_submissions_has_a_profile_and_no_rank(client: FlaskClient) -> None:
    make_user(client, "carol")
    profile = client.get("/api/users/Carol").json  # any spelling of the name
    assert profile["user"] == "carol" and profile["rank"] is None and profile["submissions"] == 0
    page = client.get("/users/carol", headers={"Accept-Language": "zh"}).get_data(as_text=True)
    assert "还未上榜" in page and "还没有提交。" in page


def test_an_unknown_user_is_a_404(client: FlaskClient) -> None:
    missing = client.get("/api/users/nobody")
    assert missing.status_code == 404 and missing.json["error"]["code"] == "unknown_user"
    assert client.get("/users/nobody").status_code == 404


def test_the_nav_links_your_own_profile_and_the_boards_link_every_username(
    app: Flask, client: FlaskClient
) -> None:
    alice = make_user(client, "alice")
    submit(client, alice, GOOD)
    wait_judged(app)
    page_login(client, "alice")
    assert 'id="nav-profile" href="/users/alice"' in client.get("/").get_data(as_text=True)
    assert 'href="/users/alice"' in client.get("/leaderboard").get_data(as_text=True)
    assert 'href="/users/alice"' in client.get("/leaderboard/add-two").get_data(as_text=True)


def test_per_problem_boards_are_linked_from_the_problem_page_and_the_overall_board(
    client: FlaskClient,
) -> None:
    problem_page = client.get("/problems/add-two").get_data(as_text=True)
    assert 'id="problem-board-link" href="/leaderboard/add-two"' in problem_page
    board = client.get("/leaderboard").get_data(as_text=True)
    assert 'href="/leaderboard/add-two"' in board and 'href="/leaderboard/add-more"' in board
