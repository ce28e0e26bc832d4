"""The admin page: rejudge or hide problems through forms."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from sqlalchemy import func, select

from web.accounts.auth import require_admin
from web.attempts import admin_actions
from web.state import platform
from web.store.models import Submission

bp = Blueprint("admin", __name__)


@bp.get("/admin")
def index() -> str:
    require_admin()
    state = platform()
    versions: dict[str, list[tuple[str, int]]] = {}
    rows = g.db.execute(
        select(Submission.problem_slug, Submission.problem_version, func.count())
        .where(Submission.problem_version.is_not(None))
        .group_by(Submission.problem_slug, Submission.problem_version)
    ).all()
    for slug, version, count in rows:
        versions.setdefault(slug, []).append((version, count))
    return render_template(
        "admin/admin.html",
        problems=state.catalog.all(),
        hidden=state.catalog.hidden(g.db),
        versions=versions,
    )


@bp.post("/admin/problems/<slug>/rejudge")
def rejudge(slug: str) -> Any:
    require_admin()
    version = request.form.get("version") or None
    count = admin_actions.rejudge(platform(), g.db, slug, version)
    flash(f"{slug}: {count} submissions re-queued")
    return redirect(url_for("admin.index"), code=303)


@bp.post("/admin/problems/<slug>/hidden")
def set_hidden(slug: str) -> Any:
    require_admin()
    hidden = request.form.get("hidden") == "1"
    admin_actions.set_hidden(platform(), g.db, slug, hidden)
    flash(f"{slug}: {'hidden' if hidden else 'visible'}")
    return redirect(url_for("admin.index"), code=303)
