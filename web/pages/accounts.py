"""Log-in, registration and log-out pages (forms with CSRF tokens)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, session, url_for

from web.api.accounts import authenticate, register_user
from web.auth import log_in
from web.errors import ApiError

bp = Blueprint("accounts", __name__)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if request.method == "GET":
        return render_template("login.html", error=None, username="")
    username = request.form.get("username", "")
    try:
        user = authenticate(username, request.form.get("password", ""))
    except ApiError as exc:
        if exc.status == 429:
            raise
        return render_template("login.html", error=exc.message, username=username), exc.status
    log_in(user)
    return redirect(_next_page(), code=303)


@bp.route("/register", methods=["GET", "POST"])
def register() -> Any:
    if request.method == "GET":
        return render_template("register.html", error=None, username="")
    username = request.form.get("username", "")
    try:
        user = register_user(username, request.form.get("password", ""))
    except ApiError as exc:
        if exc.status == 429:
            raise
        return render_template("register.html", error=exc.message, username=username), exc.status
    log_in(user)
    return redirect(url_for("problems.index"), code=303)


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("problems.index"), code=303)


def _next_page() -> str:
    target = request.args.get("next", "")
    # Same-site paths only ("//host" would leave the site).
    return target if target.startswith("/") and not target.startswith("//") else "/"
