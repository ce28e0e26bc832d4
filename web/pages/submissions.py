"""The submissions list and one submission's page (code and per-case results)."""

from __future__ import annotations

import json

from flask import Blueprint, g, render_template

from web.attempts import submissions
from web.content.markdown import render_markdown
from web.content.quiz_marks import question_numbers
from web.state import platform

bp = Blueprint("submissions", __name__)


@bp.get("/submissions")
def index() -> str:
    query = submissions.query_from_args(platform(), g.db, g.viewer, limit=50)
    rows = submissions.search(g.db, query)
    return render_template(
        "submissions/submissions.html",
        rows=rows,
        titles={p.slug: p.title for p in platform().catalog.all()},
        query=query,
        next_before=rows[-1][0].id if len(rows) == query.limit else None,
    )


def _quiz_numbers(slug: str) -> dict[str, int]:
    """For a quiz, each question id -> its number on the quiz's page, so the verdict names
    questions as the page numbers them; {} for a code problem or one no longer served."""
    problem = next((p for p in platform().catalog.all() if p.slug == slug), None)
    if problem is None or problem.quiz is None:
        return {}
    return question_numbers(problem.quiz)


@bp.get("/submissions/<int:submission_id>")
def show(submission_id: int) -> str:
    hidden = submissions.hidden_for(platform(), g.db, g.viewer)
    sub, username = submissions.find(g.db, submission_id, hidden)
    full = submissions.can_see_details(g.viewer, sub)
    if full:
        view = submissions.details(sub, username, admin=g.viewer.is_admin)
    else:
        view = submissions.summary(sub, username)
    # A quiz's explanations are Markdown with $math$, like the statements.
    explained = {
        case["name"]: render_markdown(case["explanation"].get(g.lang, ""))
        for case in view.get("cases", [])
        if isinstance(case.get("explanation"), dict)
    }
    return render_template(
        "submissions/submission.html",
        sub=view,
        full=full,
        explained=explained,
        numbers=_quiz_numbers(view["problem"]),
        view_json=json.dumps(view, ensure_ascii=False),
    )
