"""The submissions list and one submission's page (code and per-case results)."""

from __future__ import annotations

import json

from flask import Blueprint, g, render_template, request

from web import submissions
from web.inputs import int_arg

bp = Blueprint("submissions", __name__)


@bp.get("/submissions")
def index() -> str:
    query = submissions.SubmissionQuery(
        problem=request.args.get("problem") or None,
        username=request.args.get("user") or None,
        before=int_arg("before", 0, low=0, high=2**62) or None,
        limit=50,
    )
    rows = submissions.search(g.db, query)
    return render_template(
        "submissions.html",
        rows=rows,
        query=query,
        next_before=rows[-1][0].id if len(rows) == query.limit else None,
    )


@bp.get("/submissions/<int:submission_id>")
def show(submission_id: int) -> str:
    sub, username = submissions.find(g.db, submission_id)
    full = submissions.can_see_details(g.viewer, sub)
    if full:
        view = submissions.details(sub, username, admin=g.viewer.is_admin)
    else:
        view = submissions.summary(sub, username)
    return render_template(
        "submission.html",
        sub=view,
        full=full,
        view_json=json.dumps(view, ensure_ascii=False),
    )
