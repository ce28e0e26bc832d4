"""Who is asking: a session cookie (pages, with a CSRF token) or a bearer API token
(programs). Passwords are salted hashes; tokens are stored as SHA-256 digests and expire.
Every session carries its user's session generation: bumping it ends them all."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from flask import g, request, session
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from web.errors import ApiError
from web.i18n import say
from web.store.db import iso, utcnow
from web.store.models import ApiToken, User

# Matched with fullmatch: "alice\n" must not pass as "alice" (a `$` would let it).
USERNAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{2,31}")
PASSWORD_MIN, PASSWORD_MAX = 8, 128
TOKEN_PREFIX = "jdg_"
TOKEN_LIFETIME = timedelta(days=30)
TOKEN_LABEL_MAX = 64
MAX_TOKENS_PER_USER = 100  # past this many live tokens, a new one replaces the oldest
LAST_USED_EVERY = timedelta(minutes=1)  # coarse, so a token's use is not a write per request
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
# Longer than any stored key; a longer "username" is looked up as nobody.
LOOKUP_MAX = 64


@dataclass(frozen=True, slots=True)
class Viewer:
    """The authenticated user of this request, and how they authenticated."""

    id: int
    username: str
    is_admin: bool
    via_token: bool
    token_id: int | None = None  # the bearer token this request came with
    # A token minted for a handbook's page on another origin (HANDBOOK_TOKEN): it submits,
    # runs and reads as its user, never as an admin, and manages no tokens or password.
    handbook: bool = False


# The label every token minted for a cross-origin page starts with (POST /api/token from an
# origin in JUDGE_CORS_ORIGINS; web/serving/cors.py): the server sets it, whatever the page
# asked. Script on that origin can read what the page keeps, so such a token can do no more
# than a reader needs there. Another token given this label only loses power.
HANDBOOK_TOKEN = "handbook page "


def username_key(username: str) -> str:
    """What makes two usernames the same: NFKC (fullwidth "Ａ" is "A"), then casefold."""
    return unicodedata.normalize("NFKC", username).casefold()


def check_username(username: object) -> str:
    if not isinstance(username, str) or USERNAME_RE.fullmatch(username) is None:
        raise ApiError(400, "invalid_username", say("err_username"), field="username")
    return username


def check_password(password: object, field: str = "password") -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        message = say("err_password", low=PASSWORD_MIN, high=PASSWORD_MAX)
        raise ApiError(400, "invalid_password", message, field=field)
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


def find_user(db: Session, username: str) -> User | None:
    """The account this name logs in to: the exact stored spelling first (accounts from
    before normalisation keep working), else any spelling with the same key."""
    if len(username) > LOOKUP_MAX or "\x00" in username:
        return None  # no stored name is this long; PostgreSQL refuses NUL in text
    exact = db.scalars(select(User).where(User.username == username)).first()
    if exact is not None:
        return exact
    return db.scalars(select(User).where(User.username_key == username_key(username))).first()


def new_api_token(
    db: Session, user_id: int, *, label: str | None = None, lifetime: timedelta = TOKEN_LIFETIME
) -> tuple[str, ApiToken]:
    """A new bearer token (shown once) and its stored row, which holds only the digest."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    row = ApiToken(
        user_id=user_id,
        token_hash=_digest(token),
        created_at=now,
        label=label,
        expires_at=now + lifetime,
    )
    db.add(row)
    db.flush()
    _drop_old_tokens(db, user_id, now)
    return token, row


def _drop_old_tokens(db: Session, user_id: int, now: datetime) -> None:
    db.execute(delete(ApiToken).where(ApiToken.user_id == user_id, ApiToken.expires_at <= now))
    keep = (
        select(ApiToken.id)
        .where(ApiToken.user_id == user_id)
        .order_by(ApiToken.id.desc())
        .limit(MAX_TOKENS_PER_USER)
    )
    db.execute(delete(ApiToken).where(ApiToken.user_id == user_id, ApiToken.id.not_in(keep)))


def token_summary(row: ApiToken, current: int | None) -> dict[str, object]:
    """What a token listing shows: never the token, which is not stored."""
    return {
        "id": row.id,
        "label": row.label,
        "created_at": iso(row.created_at),
        "last_used_at": iso(row.last_used_at),
        "expires_at": iso(row.expires_at),
        "current": row.id == current,
    }


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def load_viewer(db: Session) -> Viewer | None:
    """Resolve the bearer token if one is sent (a bad one is an error), else the session."""
    header = request.headers.get("Authorization")
    if header is not None:
        return _token_viewer(db, header)
    user_id, generation = session.get("user_id"), session.get("generation")
    if user_id is None:
        return None
    user = db.get(User, user_id) if isinstance(user_id, int) else None
    if user is None or generation != user.session_generation:
        session.clear()  # logged out elsewhere, password changed, or a cookie from before
        return None
    return Viewer(user.id, user.username, user.is_admin, via_token=False)


def _token_viewer(db: Session, header: str) -> Viewer:
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_token", say("err_token_header"))
    query = (
        select(User, ApiToken)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == _digest(token.strip()))
    )
    row = db.execute(query).first()
    if row is None:
        raise ApiError(401, "bad_token", say("err_token_unknown"))
    user, stored = row
    now = utcnow()
    if stored.expires_at <= now:
        raise ApiError(401, "bad_token", say("err_token_expired", when=iso(stored.expires_at)))
    if stored.last_used_at is None or stored.last_used_at < now - LAST_USED_EVERY:
        db.execute(update(ApiToken).where(ApiToken.id == stored.id).values(last_used_at=now))
        db.commit()
    handbook = (stored.label or "").startswith(HANDBOOK_TOKEN)
    admin = user.is_admin and not handbook
    return Viewer(user.id, user.username, admin, True, stored.id, handbook)


def log_in(user: User) -> None:
    session.clear()  # a fresh session on log-in: no fixation of an earlier one
    session["user_id"] = user.id
    session["generation"] = user.session_generation
    session["csrf"] = secrets.token_urlsafe(32)


def end_sessions(db: Session, user_id: int) -> None:
    """Every session cookie of this user stops working (copies included); not committed."""
    bump = User.session_generation + 1
    db.execute(update(User).where(User.id == user_id).values(session_generation=bump))


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
    # Bytes, not str: compare_digest refuses str holding non-ASCII (a 500 before).
    if not isinstance(expected, str) or not hmac.compare_digest(
        expected.encode("utf-8"), sent.encode("utf-8", "surrogateescape")
    ):
        raise ApiError(403, "csrf_failed", say("err_csrf"))


def require_user() -> Viewer:
    viewer: Viewer | None = g.viewer
    if viewer is None:
        raise ApiError(401, "login_required", say("err_login_required"))
    return viewer


def require_admin() -> Viewer:
    viewer = require_user()
    if not viewer.is_admin:
        raise ApiError(403, "admin_only", say("err_admin_only"))
    return viewer
