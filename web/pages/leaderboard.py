"""The overall leaderboard page, a problem's board (with the speed board) and a user's
profile page."""

from __future__ import annotations

from flask import Blueprint, g, render_template

from web.accounts import profiles
from web.boards import leaderboard
from web.serving.inputs import int_arg
from web.state import platform

bp = Blueprint("leaderboard", __name__)
PAGE = 100


@bp.get("/leaderboard")
def overall() -> str:
    offset = int_arg("offset", 0, low=0, high=10_000_000)
    board = leaderboard.overall(g.db, limit=PAGE, offset=offset)
    viewer = g.viewer
    problems = platform().catalog.visible(g.db, admin=viewer is not None and viewer.is_admin)
    return render_template(
        "leaderboard/leaderboard.html", board=board, page=PAGE, problems=problems
    )


@bp.get("/leaderboard/<slug>")
def per_problem(slug: str) -> str:
    viewer = g.viewer
    problem = platform().catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    return render_template(
        "leaderboard/leaderboard_problem.html",
        problem=problem,
        entries=leaderboard.problem_board(g.db, problem.slug, limit=PAGE),
        speed=leaderboard.speed_board_of(g.db, problem, limit=PAGE),
    )


@bp.get("/users/<username>")
def profile(username: str) -> str:
    viewer = g.viewer
    catalog = platform().catalog
    admin = viewer is not None and viewer.is_admin
    hidden = set() if admin else catalog.hidden(g.db)
    titles = {p.slug: p.title for p in catalog.visible(g.db, admin=admin)}
    shown = profiles.profile(g.db, username, hidden=hidden)
    speeds = {r["problem"]: r["speed"] for r in shown["results"] if r["speed"] is not None}
    return render_template("leaderboard/profile.html", profile=shown, titles=titles, speeds=speeds)
