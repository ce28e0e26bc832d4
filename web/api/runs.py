"""POST /api/problems/<slug>/run, GET /api/runs/<id>: Run on the server (torch tier);
POST /api/problems/<slug>/try-input: a learner's own arguments on the reference (any code
problem), polled the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, g, jsonify

from judge.errors import InputRefused
from judge.kinds.registry import kind_of
from judge.messages import Message
from judge.messages import say as judge_say
from judge.problem.custom_input import parse_input
from web.accounts.auth import require_user
from web.errors import Invalid
from web.i18n import current_language, say
from web.judging import core_seam
from web.serving.inputs import client_address, json_body, required_str
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
    view = _limited(viewer.id, lambda: state.runs.start(viewer.id, problem, code))
    return jsonify(view), 202, {"Location": view["url"]}


@bp.post("/problems/<slug>/try-input")
def try_input(slug: str) -> Any:
    """Run the reference on the learner's own arguments (`input`, JSON text) and, when `code`
    is given, their code beside it: a torch-tier page sends its code (the browser cannot run
    it), a browser-tier page runs the code itself on the reference's answer. Stored nowhere
    but as a run: never an attempt; counted with the runs, one at a time."""
    viewer = require_user()
    state = platform()
    body = json_body(own_check=("code",))
    text = required_str(body, "input")
    code = required_str(body, "code") if body.get("code") is not None else None
    problem = state.catalog.find(g.db, slug, admin=viewer.is_admin)
    if not kind_of(problem).runs_code:
        raise Invalid("not_code", translated(judge_say("input.not_code", slug=problem.slug)))
    if code is None and problem.tier == "torch":
        raise Invalid("code_required", say("err_try_input_code"), field="code")
    if code is not None and problem.tier != "torch":  # the page runs it: the server need not
        raise Invalid("runs_in_browser", say("err_try_input_browser"), field="code")
    if code is not None:
        reason = core_seam.source_problem(code)
        if reason is not None:
            raise Invalid("invalid_code", reason, field="code")
    try:
        parse_input(text)  # read here, where it arrives; the job reads the same text again
    except InputRefused as exc:
        assert exc.said is not None  # every refusal is a catalog sentence
        raise Invalid("invalid_input", translated(exc.said), field="input") from None
    view = _limited(viewer.id, lambda: state.runs.start(viewer.id, problem, code, text))
    return jsonify(view), 202, {"Location": view["url"]}


def _limited(user_id: int, start: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Start a run within the runs' limits, per user and per address (an input tried is a
    run too). Counted only once it starts: a refusal for a busy slot costs nothing."""
    state = platform()
    config, limiter = state.config, state.limiter
    per_user, per_ip = f"run:user:{user_id}", f"run:ip:{client_address()}"
    limiter.check(per_user, config.run_per_user, say("what_runs"))
    limiter.check(per_ip, config.run_per_ip, say("what_runs_ip"))
    view = start()
    limiter.record(per_user, config.run_per_user)
    limiter.record(per_ip, config.run_per_ip)
    return view


def translated(message: Message) -> str:
    """A judge sentence in the request's language."""
    return message.render(current_language())


@bp.get("/runs/<run_id>")
def show(run_id: str) -> Any:
    viewer = require_user()
    return jsonify(platform().runs.get(viewer.id, run_id))
