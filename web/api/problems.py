"""GET /api/problems, GET /api/problems/<slug>, its starter, its editorial and your draft."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, jsonify

from judge.kinds.registry import kind_of
from judge.problem.spec import ProblemSpec
from web.accounts.auth import require_user
from web.attempts import drafts
from web.boards.leaderboard import progress
from web.content import guidance, quiz_sheets
from web.serving.inputs import json_body, required_str
from web.state import platform

bp = Blueprint("api_problems", __name__)


def problem_summary(problem: ProblemSpec, hidden: set[str]) -> dict[str, Any]:
    """The core's public summary (the one `judge list --json` and the bundles carry), plus
    what only the platform knows: whether an admin hid the problem, and where it lives."""
    return problem.summary() | {
        "hidden": problem.slug in hidden,
        "url": f"/api/problems/{problem.slug}",
    }


@bp.get("/problems")
def list_problems() -> Any:
    state, viewer = platform(), g.viewer
    admin = viewer is not None and viewer.is_admin
    hidden = state.catalog.hidden(g.db)
    mine = progress(g.db, viewer.id) if viewer is not None else {}
    out = []
    for problem in state.catalog.visible(g.db, admin=admin):
        item = problem_summary(problem, hidden)
        item["progress"] = mine.get(problem.slug) if viewer is not None else None
        out.append(item)
    return jsonify({"problems": out})


@bp.get("/problems/<slug>")
def get_problem(slug: str) -> Any:
    state, viewer = platform(), g.viewer
    problem = state.catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    item = problem_summary(problem, state.catalog.hidden(g.db))
    item["statement"] = {lang: problem.statement(lang) for lang in ("en", "zh")}
    item["starter"] = problem.starter_source()
    item |= kind_of(problem).public_details(problem)  # a quiz's questions: public by design
    item["hints"] = [hint.to_dict() for hint in problem.hints]  # public: no answer in them
    item["has_editorial"] = problem.has_editorial
    item["starter_url"] = f"/api/problems/{slug}/starter"
    item["bundle_url"] = f"/static/dist/problems/{slug}.json"
    return jsonify(item)


@bp.post("/problems/<slug>/questions/<question_id>/reveal")
def reveal(slug: str, question_id: str) -> Any:
    """Give up on a quiz question: its explanation, and no more points for this quiz."""
    viewer = require_user()
    state = platform()
    problem = state.catalog.find(g.db, slug, admin=viewer.is_admin)
    explanation = quiz_sheets.reveal(g.db, viewer.id, problem, question_id)
    g.db.commit()
    return jsonify({"question": question_id, "explanation": explanation, "scoring": "ended"})


@bp.get("/problems/<slug>/starter")
def starter(slug: str) -> Response:
    state, viewer = platform(), g.viewer
    problem = state.catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    return Response(problem.starter_source(), mimetype="text/x-python")


@bp.get("/problems/<slug>/editorial")
def editorial(slug: str) -> Any:
    """The reference's explanation, for a user with an accepted submission only."""
    viewer = require_user()
    problem = platform().catalog.find(g.db, slug, admin=viewer.is_admin)
    return jsonify(
        {"problem": problem.slug, "editorial": guidance.editorial_or_refuse(g.db, problem)}
    )


@bp.get("/problems/<slug>/draft")
def get_draft(slug: str) -> Any:
    """Your draft of the problem (the editor loads it when it is newer than its own)."""
    viewer = require_user()
    problem = platform().catalog.find(g.db, slug, admin=viewer.is_admin)
    return jsonify(drafts.load(g.db, viewer.id, problem.slug))


@bp.put("/problems/<slug>/draft")
def put_draft(slug: str) -> Any:
    """Save your draft of the problem (the editor sends it a moment after you stop typing)."""
    viewer = require_user()
    problem = platform().catalog.find(g.db, slug, admin=viewer.is_admin)
    code = required_str(json_body(own_check=("code",)), "code")
    return jsonify(drafts.save(g.db, viewer.id, problem.slug, code))
