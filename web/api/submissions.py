"""POST /api/submissions, GET /api/submissions[/<id>[/events|/diff]]."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, g, jsonify, request
from sqlalchemy.orm import Session, sessionmaker

from web.accounts.auth import Viewer, require_user
from web.attempts import diffs, submissions
from web.errors import ApiError
from web.i18n import say
from web.serving.inputs import client_address, int_arg, json_body, required_str
from web.state import platform
from web.store.models import SubmissionStatus

bp = Blueprint("api_submissions", __name__)
POLL_S = 0.25  # how often an event stream re-reads the row
# A comment line this often when nothing changed: a server learns that its client hung up
# only when a write fails, and the slot is freed then, not when the status next changes.
HEARTBEAT_S = 1.0


@bp.post("/submissions")
def create() -> Any:
    viewer = require_user()
    body = json_body(own_check=("code",))  # judge.run.source_check says "not UTF-8" itself
    slug = required_str(body, "problem")
    code = required_str(body, "code")
    new_id = submissions.create(platform(), g.db, viewer, slug, code, client_address())
    url = f"/api/submissions/{new_id}"
    status = SubmissionStatus.QUEUED
    payload = {"id": new_id, "status": status, "url": url, "events_url": f"{url}/events"}
    return jsonify(payload), 202, {"Location": url}


@bp.get("/submissions/<int:submission_id>")
def show(submission_id: int) -> Any:
    hidden = submissions.hidden_for(platform(), g.db, g.viewer)
    return jsonify(_view(g.db, g.viewer, submission_id, hidden))


def _view(
    db: Session, viewer: Viewer | None, submission_id: int, hidden: tuple[str, ...]
) -> dict[str, Any]:
    sub, username = submissions.find(db, submission_id, hidden)
    if viewer is not None and submissions.can_see_details(viewer, sub):
        return submissions.details(sub, username, admin=viewer.is_admin)
    return submissions.summary(sub, username)


@bp.get("/submissions/<int:submission_id>/diff")
def diff(submission_id: int) -> Any:
    """A line diff from this submission to `?against=<id>`, both the caller's own."""
    viewer = require_user()
    against = int_arg("against", 0, low=1, high=2**62)
    if not against:
        raise ApiError(400, "missing_field", say("err_missing", field="against"), field="against")
    hidden = submissions.hidden_for(platform(), g.db, viewer)
    return jsonify(diffs.compare(g.db, viewer, submission_id, against, hidden))


@bp.get("/submissions")
def index() -> Any:
    limit = int_arg("limit", 50, low=1, high=200)
    query = submissions.query_from_args(platform(), g.db, g.viewer, limit=limit)
    rows = submissions.search(g.db, query)
    items = [submissions.summary(s, name) for s, name in rows]
    next_url = None
    if len(rows) == query.limit:
        args = {k: v for k, v in request.args.items() if k != "before"}
        args["before"] = str(rows[-1][0].id)
        next_url = "/api/submissions?" + urlencode(args)
    return jsonify({"submissions": items, "next": next_url})


@bp.get("/submissions/<int:submission_id>/events")
def events(submission_id: int) -> Response:
    """Server-sent events: a `status` event whenever the status changes, the full record
    as a `done` event at the end. The stream closes after events_max_s; reconnect."""
    state = platform()
    hidden = submissions.hidden_for(state, g.db, g.viewer)
    submissions.find(g.db, submission_id, hidden)  # 404 before a stream starts
    claim = state.streams.acquire(g.viewer.id if g.viewer is not None else None, client_address())
    if claim is None:
        raise ApiError(
            503,
            "streams_busy",
            say("err_streams_busy", id=submission_id),
            retry_after=2,
        )
    deadline = time.monotonic() + state.config.events_max_s
    response = Response(
        _stream(state.sessions, g.viewer, submission_id, hidden, deadline),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(lambda: state.streams.release(claim))  # also when it goes away
    return response


def _stream(
    sessions: sessionmaker[Session],
    viewer: Viewer | None,
    submission_id: int,
    hidden: tuple[str, ...],
    deadline: float,
) -> Iterator[str]:
    # Its own short sessions: the request's session is closed once the response starts.
    last: tuple[object, object] | None = None
    yield "retry: 1000\n\n"
    written = time.monotonic()
    while time.monotonic() < deadline:
        with sessions() as db:
            view = _view(db, viewer, submission_id, hidden)
        seen = (view["status"], view["progress"])  # progress: "case 12 of 46" as it moves
        if seen != last:
            last = seen
            # The last event is named after the final status; every earlier one "status".
            final = view["status"] == SubmissionStatus.DONE
            kind = SubmissionStatus.DONE.value if final else "status"
            yield f"event: {kind}\ndata: {json.dumps(view, ensure_ascii=False)}\n\n"
            written = time.monotonic()
            if final:
                return
        elif time.monotonic() - written >= HEARTBEAT_S:
            yield ": waiting\n\n"  # a comment: EventSource ignores it
            written = time.monotonic()
        time.sleep(POLL_S)
    yield "event: timeout\ndata: {}\n\n"
