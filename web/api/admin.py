"""Admin API: rejudge a problem (optionally one version), hide or show a problem, and list
the judge workers."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify

from web.accounts.auth import require_admin
from web.attempts import admin_actions
from web.errors import ApiError
from web.i18n import say
from web.judging import fleet
from web.serving.inputs import json_body
from web.state import platform

bp = Blueprint("api_admin", __name__)


@bp.post("/admin/problems/<slug>/rejudge")
def rejudge(slug: str) -> Any:
    require_admin()
    body = json_body()
    version = body.get("version")
    if version is not None and not isinstance(version, str):
        raise ApiError(400, "invalid_field", say("err_admin_version"), field="version")
    count = admin_actions.rejudge(platform(), g.db, slug, version)
    return jsonify({"problem": slug, "version": version, "requeued": count})


@bp.post("/admin/problems/<slug>/hidden")
def set_hidden(slug: str) -> Any:
    require_admin()
    hidden = json_body().get("hidden")
    if not isinstance(hidden, bool):
        raise ApiError(400, "invalid_field", say("err_admin_hidden"), field="hidden")
    admin_actions.set_hidden(platform(), g.db, slug, hidden)
    return jsonify({"problem": slug, "hidden": hidden})


@bp.get("/admin/workers")
def workers() -> Any:
    """The `judge worker` processes that registered (Celery deployments; none embedded)."""
    require_admin()
    return jsonify({"workers": fleet.listing(g.db)})
