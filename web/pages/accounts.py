"""Log-in, registration, log-out and password pages (forms with CSRF tokens)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, g, redirect, render_template, request, session, url_for

from web.accounts.auth import PASSWORD_MAX, PASSWORD_MIN, end_sessions, log_in, require_user
from web.api.accounts import authenticate, change_password, register_user
from web.errors import ApiError
from web.i18n import say
from web.serving.inputs import safe_next

bp = Blueprint("accounts", __name__)


def _next() -> str | None:
    """The page to return to after logging in or registering, if it is one of ours: carried
    from the log-in page to the registration page and back, so a learner who came from a
    problem returns to it whichever form they fill in."""
    target = request.args.get("next")
    return target if target and safe_next(target) == target else None


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    page = {"next_page": _next()}
    if request.method == "GET":
        return render_template("accounts/login.html", error=None, username="", **page)
    username = request.form.get("username", "")
    try:
        user = authenticate(username, request.form.get("password", ""))
    except ApiError as exc:
        html = render_template("accounts/login.html", error=exc.message, username=username, **page)
        return html, exc.status
    log_in(user)
    return redirect(safe_next(request.args.get("next")), code=303)


@bp.route("/register", methods=["GET", "POST"])
def register() -> Any:
    # The rules are shown beside the fields from the start, not only in a refusal.
    page = {
        "next_page": _next(),
        "password_rule": say("password_rule", low=PASSWORD_MIN, high=PASSWORD_MAX),
    }
    if request.method == "GET":
        return render_template("accounts/register.html", error=None, username="", **page)
    username = request.form.get("username", "")
    try:
        user = register_user(username, request.form.get("password", ""))
    except ApiError as exc:
        html = render_template(
            "accounts/register.html", error=exc.message, username=username, **page
        )
        return html, exc.status
    log_in(user)
    return redirect(page["next_page"] or url_for("problems.index"), code=303)


@bp.post("/logout")
def logout() -> Any:
    """Ends every session of the user, not only this one: a copied cookie stops working."""
    if g.viewer is not None and not g.viewer.via_token:
        end_sessions(g.db, g.viewer.id)
        g.db.commit()
    session.clear()
    return redirect(url_for("problems.index"), code=303)


@bp.route("/account/password", methods=["GET", "POST"])
def password() -> Any:
    viewer = require_user()
    if request.method == "GET":
        return render_template("accounts/password.html", error=None)
    form = request.form
    try:
        user, _ = change_password(
            viewer, form.get("current_password", ""), form.get("new_password", "")
        )
    except ApiError as exc:
        return render_template("accounts/password.html", error=exc.message), exc.status
    log_in(user)  # this browser stays logged in; every other session has ended
    flash(say("password_changed"))
    return redirect(url_for("problems.index"), code=303)
