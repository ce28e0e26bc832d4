"""POST /api/problems/<slug>/run, GET /api/runs/<id>: Run on the server (torch tier)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify

from web.accounts.auth import require_user
from web.errors import Invalid
from web.i18n import say
from web.judging import core_seam
from web.serving.inputs import client_ip, json_body, required_str
from web.state import platform

bp = Blueprint("api_runs", __name__)


@bp.post("/problems/<slug>/run")
def start(slug: str) -> Any:
    """Judge the code on the public cases, stored nowhere; poll the answer's url."""
    viewer = require_user()
    state = platform()
    body = json_body(own_check=("code",))  # judge.run.source_check says "not UTF-8" itself
    code = required_str(body, "code")
    problem = state.catalog.find(g.db, slug, admin=viewer.is_admin)
    if problem.tier != "torch":
        raise Invalid("runs_in_browser", say("err_runs_in_browser", slug=problem.slug))
    reason = core_seam.source_problem(code)
    if reason is not None:
        raise Invalid("invalid_code", reason, field="code")
    config, limiter = state.config, state.limiter
    # Counted only once a run starts: a refusal for a busy slot costs the learner nothing.
    per_user, per_ip = f"run:user:{viewer.id}", f"run:ip:{client_ip()}"
    limiter.check(per_user, config.run_per_user, say("what_runs"))
    limiter.check(per_ip, config.run_per_ip, say("what_runs_ip"))
    view = state.runs.start(viewer.id, problem, code)
    limiter.record(per_user, config.run_per_user)
    limiter.record(per_ip, config.run_per_ip)
    return jsonify(view), 202, {"Location": view["url"]}


@bp.get("/runs/<run_id>")
def show(run_id: str) -> Any:
    viewer = require_user()
    return jsonify(platform().runs.get(viewer.id, run_id))
