"""GET /api/leaderboard, GET /api/leaderboard/<slug>, GET /api/users/<username>."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify

from web.accounts import profiles
from web.boards import leaderboard
from web.serving.inputs import int_arg
from web.state import platform

bp = Blueprint("api_leaderboard", __name__)


@bp.get("/leaderboard")
def overall() -> Any:
    limit = int_arg("limit", 100, low=1, high=500)
    offset = int_arg("offset", 0, low=0, high=10_000_000)
    return jsonify(leaderboard.overall(g.db, limit=limit, offset=offset))


@bp.get("/leaderboard/<slug>")
def per_problem(slug: str) -> Any:
    viewer = g.viewer
    problem = platform().catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    limit = int_arg("limit", 100, low=1, high=500)
    return jsonify(
        {
            "problem": problem.slug,
            "entries": leaderboard.problem_board(g.db, problem.slug, limit=limit),
            # One board per device class: a CPU score never ranks beside a GPU score.
            "speed": leaderboard.speed_boards(g.db, problem.slug, limit=limit),
        }
    )


@bp.get("/users/<username>")
def user_profile(username: str) -> Any:
    """A user's profile (as on /users/<username>): solved, submissions, rank, results."""
    return jsonify(profiles.profile(g.db, username, hidden=_hidden_for_viewer()))


def _hidden_for_viewer() -> set[str]:
    viewer = g.viewer
    return set() if viewer is not None and viewer.is_admin else platform().catalog.hidden(g.db)
