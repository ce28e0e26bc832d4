"""Accounts: POST /api/register, POST /api/token, GET /api/me, POST /api/password, and the
token list: GET /api/tokens, DELETE /api/token (the one in use), DELETE /api/tokens/<id>."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, g, jsonify, request
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from web.accounts.auth import (
    HANDBOOK_TOKEN,
    TOKEN_LABEL_MAX,
    TOKEN_LIFETIME,
    Viewer,
    check_password,
    check_username,
    csrf_token,
    end_sessions,
    find_user,
    hash_password,
    log_in,
    new_api_token,
    require_user,
    token_summary,
    username_key,
    verify_password,
)
from web.errors import ApiError
from web.i18n import say
from web.serving.inputs import MAX_ID, client_address, json_body, required_str
from web.state import platform
from web.store.db import changed
from web.store.models import ApiToken, User

bp = Blueprint("api_accounts", __name__)


def register_user(username: Any, password: Any) -> User:
    """Create an account (shared by the API and the register page)."""
    username, password = check_username(username), check_password(password)
    state = platform()
    state.limiter.hit(
        f"register:ip:{client_address()}", state.config.register_per_ip, say("what_accounts")
    )
    key = username_key(username)
    if g.db.scalars(select(User.id).where(User.username_key == key)).first() is not None:
        raise _taken(username)
    user = User(
        username=username,
        username_key=key,
        password_hash=hash_password(password, state.config.password_method),
    )
    g.db.add(user)
    try:
        g.db.commit()
    except IntegrityError:  # two registrations of one name at once: the index decides
        g.db.rollback()
        raise _taken(username) from None
    return user


def _taken(username: str) -> ApiError:
    message = say("err_username_taken", name=username)
    return ApiError(409, "username_taken", message, field="username")


def authenticate(username: Any, password: Any, *, field: str = "password") -> User:
    """The user for these credentials. Failures are counted per (name, address), so a
    stranger guessing from elsewhere cannot lock the owner out; every attempt counts
    toward the per-address cap, which bounds the password hashing one address can cause."""
    if not isinstance(username, str) or not isinstance(password, str):
        raise ApiError(400, "missing_field", say("err_credentials_missing"))
    state, ip = platform(), client_address()
    state.limiter.hit(f"login:ip:{ip}", state.config.login_per_ip, say("what_logins"))
    failures = f"login:failed:{ip}:{username_key(username)[:64]}"
    state.limiter.check(failures, state.config.login_per_user, say("what_failed_logins"))
    user = find_user(g.db, username)
    if not verify_password(user, password, state.config.password_method) or user is None:
        state.limiter.record(failures, state.config.login_per_user)
        if field == "password":
            raise ApiError(401, "bad_credentials", say("err_credentials"))
        raise ApiError(403, "wrong_password", say("err_current_password"), field=field)
    return user


def change_password(viewer: Viewer, current: Any, new: Any) -> tuple[User, int]:
    """Check the current password, store the new one, end every session of the user and
    revoke all their tokens; returns the user and how many tokens went. Committed."""
    user = authenticate(viewer.username, current, field="current_password")
    if user.id != viewer.id:  # never another account's password, whatever the names
        raise ApiError(403, "wrong_password", say("err_current_password"), field="current_password")
    new = check_password(new, field="new_password")
    user.password_hash = hash_password(new, platform().config.password_method)
    end_sessions(g.db, user.id)
    revoked = changed(g.db, delete(ApiToken).where(ApiToken.user_id == user.id))
    g.db.commit()
    g.db.refresh(user)  # the bumped session generation, for the caller's new session
    return user, revoked


@bp.post("/register")
def register() -> Any:
    body = json_body()
    user = register_user(required_str(body, "username"), required_str(body, "password"))
    return jsonify({"id": user.id, "username": user.username}), 201


@bp.post("/token")
def token() -> Any:
    body = json_body()
    user = authenticate(required_str(body, "username"), required_str(body, "password"))
    label, lifetime = _token_label(body), _token_lifetime(body)
    origin = request.headers.get("Origin", "")
    if origin in platform().config.cors_origins:  # a handbook's page: a token of its own kind
        label = f"{HANDBOOK_TOKEN}{origin}"[:TOKEN_LABEL_MAX]
        lifetime = min(lifetime, HANDBOOK_LIFETIME)
    value, row = new_api_token(g.db, user.id, label=label, lifetime=lifetime)
    g.db.commit()
    payload: dict[str, object] = {"token": value, "token_type": "bearer"}
    payload |= {"username": user.username} | token_summary(row, None)
    del payload["current"]
    return jsonify(payload), 201


def _token_label(body: dict[str, Any]) -> str | None:
    label = body.get("label")
    if label is not None and (not isinstance(label, str) or len(label) > TOKEN_LABEL_MAX):
        message = say("err_token_label", max=TOKEN_LABEL_MAX)
        raise ApiError(400, "invalid_field", message, field="label")
    return label


def _token_lifetime(body: dict[str, Any]) -> timedelta:
    days, most = body.get("expires_in_days"), TOKEN_LIFETIME.days
    if days is None:
        return TOKEN_LIFETIME
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= most:
        message = say("err_token_lifetime", max=most)
        raise ApiError(400, "invalid_field", message, field="expires_in_days")
    return timedelta(days=days)


# A handbook page's token lives in that page's storage: it expires sooner than others.
HANDBOOK_LIFETIME = timedelta(days=14)


def require_own_account() -> Viewer:
    """The viewer, unless their token was minted for a handbook's page: such a token does
    not list or revoke other tokens or change the password (a script on that origin could
    read it)."""
    viewer = require_user()
    if viewer.handbook:
        raise ApiError(403, "handbook_token", say("err_handbook_token"))
    return viewer


@bp.get("/tokens")
def list_tokens() -> Any:
    viewer = require_own_account()
    rows = g.db.scalars(
        select(ApiToken).where(ApiToken.user_id == viewer.id).order_by(ApiToken.id.desc())
    )
    return jsonify({"tokens": [token_summary(row, viewer.token_id) for row in rows]})


@bp.delete("/token")
def revoke_current() -> Any:
    viewer = require_user()
    if viewer.token_id is None:
        raise ApiError(400, "bad_request", say("err_no_bearer"))
    return _revoke(viewer, viewer.token_id)


@bp.delete("/tokens/<int:token_id>")
def revoke(token_id: int) -> Any:
    return _revoke(require_own_account(), token_id)


def _revoke(viewer: Viewer, token_id: int) -> Any:
    query = delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == viewer.id)
    if token_id > MAX_ID or not changed(g.db, query):
        raise ApiError(404, "unknown_token", say("err_unknown_token", id=token_id))
    g.db.commit()
    return jsonify({"id": token_id, "revoked": True})


@bp.post("/password")
def password() -> Any:
    viewer = require_own_account()
    body = json_body()
    current, new = required_str(body, "current_password"), required_str(body, "new_password")
    user, revoked = change_password(viewer, current, new)
    if not viewer.via_token:
        log_in(user)  # this browser stays logged in, on the new generation
    return jsonify({"username": viewer.username, "sessions_ended": True, "tokens_revoked": revoked})


@bp.get("/me")
def me() -> Any:
    """Who the API sees; pages' scripts also read the CSRF token from here."""
    viewer = g.viewer
    user = None
    if viewer is not None:
        user = {"id": viewer.id, "username": viewer.username, "is_admin": viewer.is_admin}
    return jsonify({"user": user, "csrf_token": csrf_token()})
