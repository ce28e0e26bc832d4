"""Who is asking: a session cookie (pages, with a CSRF token) or a bearer API token
(programs). Passwords are salted hashes; tokens are stored as SHA-256 digests."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from functools import lru_cache

from flask import g, request, session
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from web.errors import ApiError
from web.models import ApiToken, User

USERNAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{2,31}$")
PASSWORD_MIN, PASSWORD_MAX = 8, 128
TOKEN_PREFIX = "jdg_"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


@dataclass(frozen=True, slots=True)
class Viewer:
    """The authenticated user of this request, and how they authenticated."""

    id: int
    username: str
    is_admin: bool
    via_token: bool


def check_username(username: object) -> str:
    if not isinstance(username, str) or not USERNAME_RE.match(username):
        raise ApiError(
            400,
            "invalid_username",
            "username must be 3-32 characters: letters, digits, '_', '.', '-' "
            "(not starting with '.' or '-')",
            field="username",
        )
    return username


def check_password(password: object) -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ApiError(
            400,
            "invalid_password",
            f"password must be {PASSWORD_MIN}-{PASSWORD_MAX} characters",
            field="password",
        )
    return password


def hash_password(password: str, method: str) -> str:
    return generate_password_hash(password, method=method)


def verify_password(user: User | None, password: str, method: str) -> bool:
    if user is None:
        # Hash anyway so a missing user takes as long as a wrong password.
        check_password_hash(_dummy_hash(method), password)
        return False
    return check_password_hash(user.password_hash, password)


@lru_cache(maxsize=4)
def _dummy_hash(method: str) -> str:
    return generate_password_hash(secrets.token_hex(16), method=method)


def new_api_token(db: Session, user_id: int) -> str:
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    db.add(ApiToken(user_id=user_id, token_hash=_digest(token)))
    return token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def load_viewer(db: Session) -> Viewer | None:
    """Resolve the bearer token if one is sent (a bad one is an error), else the session."""
    header = request.headers.get("Authorization")
    if header is not None:
        return _token_viewer(db, header)
    user_id = session.get("user_id")
    if not isinstance(user_id, int):
        return None
    user = db.get(User, user_id)
    if user is None:
        session.clear()
        return None
    return Viewer(user.id, user.username, user.is_admin, via_token=False)


def _token_viewer(db: Session, header: str) -> Viewer:
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_token", "the Authorization header must be 'Bearer <token>'")
    query = select(User).join(ApiToken).where(ApiToken.token_hash == _digest(token.strip()))
    user = db.scalars(query).first()
    if user is None:
        raise ApiError(401, "bad_token", "the API token is unknown or was revoked")
    return Viewer(user.id, user.username, user.is_admin, via_token=True)


def log_in(user: User) -> None:
    session.clear()  # a fresh session on log-in: no fixation of an earlier one
    session["user_id"] = user.id
    session["csrf"] = secrets.token_urlsafe(32)


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Every cookie-authenticated state change must echo the session's token."""
    expected = session.get("csrf")
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected, sent):
        raise ApiError(
            403, "csrf_failed", "the form or request is missing a valid CSRF token; reload the page"
        )


def require_user() -> Viewer:
    viewer: Viewer | None = g.viewer
    if viewer is None:
        raise ApiError(401, "login_required", "log in (or send an API token) to do this")
    return viewer


def require_admin() -> Viewer:
    viewer = require_user()
    if not viewer.is_admin:
        raise ApiError(403, "admin_only", "only an administrator can do this")
    return viewer
