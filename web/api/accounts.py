"""POST /api/register, POST /api/token, GET /api/me."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from web.auth import (
    check_password,
    check_username,
    csrf_token,
    hash_password,
    new_api_token,
    verify_password,
)
from web.errors import ApiError
from web.inputs import client_ip, json_body, required_str
from web.models import User
from web.state import platform

bp = Blueprint("api_accounts", __name__)


def register_user(username: Any, password: Any) -> User:
    """Create an account (shared by the API and the register page)."""
    username, password = check_username(username), check_password(password)
    state = platform()
    state.limiter.hit(f"register:ip:{client_ip()}", state.config.register_per_ip, "new accounts")
    user = User(
        username=username, password_hash=hash_password(password, state.config.password_method)
    )
    g.db.add(user)
    try:
        g.db.commit()
    except IntegrityError:
        g.db.rollback()
        raise ApiError(
            409, "username_taken", f"username {username!r} is taken", field="username"
        ) from None
    return user


def authenticate(username: Any, password: Any) -> User:
    """The user for these credentials; rate-limited per IP and per username."""
    if not isinstance(username, str) or not isinstance(password, str):
        raise ApiError(400, "missing_field", "username and password are required")
    state = platform()
    state.limiter.hit(f"login:ip:{client_ip()}", state.config.login_per_ip, "log-in attempts")
    state.limiter.hit(
        f"login:user:{username.lower()}", state.config.login_per_user, "log-in attempts"
    )
    user = g.db.scalars(select(User).where(User.username == username)).first()
    if not verify_password(user, password, state.config.password_method) or user is None:
        raise ApiError(401, "bad_credentials", "wrong username or password")
    return user


@bp.post("/register")
def register() -> Any:
    body = json_body()
    user = register_user(required_str(body, "username"), required_str(body, "password"))
    return jsonify({"id": user.id, "username": user.username}), 201


@bp.post("/token")
def token() -> Any:
    body = json_body()
    user = authenticate(required_str(body, "username"), required_str(body, "password"))
    value = new_api_token(g.db, user.id)
    g.db.commit()
    return jsonify({"token": value, "token_type": "bearer", "username": user.username}), 201


@bp.get("/me")
def me() -> Any:
    """Who the API sees; pages' scripts also read the CSRF token from here."""
    viewer = g.viewer
    user = None
    if viewer is not None:
        user = {"id": viewer.id, "username": viewer.username, "is_admin": viewer.is_admin}
    return jsonify({"user": user, "csrf_token": csrf_token()})
