"""Reading request input: JSON bodies, query integers, redirect targets and the client's
address. Everything a request sends is checked here, where it enters, so that no handler
sees text it cannot store or a number the database cannot hold."""

from __future__ import annotations

import unicodedata
from typing import Any
from urllib.parse import unquote, urlsplit

from flask import request
from werkzeug.urls import iri_to_uri

from web.errors import ApiError
from web.i18n import say

# The largest id a SQLite or PostgreSQL BIGINT holds; a larger one names nothing.
MAX_ID = 2**63 - 1
# A JSON body nested deeper than this is refused before anything walks it.
MAX_JSON_DEPTH = 32


def json_body(*, own_check: tuple[str, ...] = ()) -> dict[str, Any]:
    """The request's JSON object, or a 400 saying exactly what is wrong with it. Fields in
    `own_check` are text whose validator reports bad Unicode itself (the code)."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", say("err_not_json"))
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # json's C decoder recurses once per level
        raise ApiError(400, "malformed_json", say("err_json_deep", depth=MAX_JSON_DEPTH)) from None
    if body is None:
        raise ApiError(400, "malformed_json", say("err_json_invalid"))
    if not isinstance(body, dict):
        raise ApiError(400, "malformed_json", say("err_json_object"))
    _check_json(body, own_check)
    return body


def _check_json(body: dict[str, Any], own_check: tuple[str, ...]) -> None:
    """Refuse deep nesting, text that is not Unicode (a lone surrogate such as "\\ud800"
    decodes from JSON but cannot be encoded for the database) and NUL characters (which
    PostgreSQL refuses in text), naming the top-level field."""
    stack: list[tuple[Any, int, str | None]] = [(body, 0, None)]
    while stack:
        value, depth, field = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ApiError(400, "malformed_json", say("err_json_deep", depth=MAX_JSON_DEPTH))
        if isinstance(value, str):
            if not (depth == 1 and field in own_check):
                _check_text(value, field)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, field or key)
                stack.append((item, depth + 1, field or key))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, field) for item in value)


def _check_text(value: str, field: str | None) -> None:
    if is_unicode(value) and "\x00" not in value:
        return
    name = field if field is not None and is_unicode(field) and "\x00" not in field else "body"
    message = say("err_surrogate" if not is_unicode(value) else "err_nul", field=name)
    raise ApiError(400, "invalid_field", message, field=name)


def is_unicode(text: str) -> bool:
    """False for text holding a lone surrogate, which no UTF-8 encoder accepts."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def required_str(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if value is None:
        raise ApiError(400, "missing_field", say("err_missing", field=name), field=name)
    if not isinstance(value, str):
        raise ApiError(400, "invalid_field", say("err_not_string", field=name), field=name)
    return value


def int_arg(name: str, default: int, *, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "invalid_query", say("err_query_int", field=name), field=name) from None
    if not low <= value <= high:
        message = say("err_query_range", field=name, low=low, high=high)
        raise ApiError(400, "invalid_query", message, field=name)
    return value


def text_arg(name: str, *, max_len: int = 64) -> str | None:
    """A short printable query parameter (a slug, a username), or None when absent."""
    raw = request.args.get(name)
    if not raw:
        return None
    if len(raw) > max_len or not raw.isprintable():
        message = say("err_query_text", field=name, max=max_len)
        raise ApiError(400, "invalid_query", message, field=name)
    return raw


def safe_next(target: str | None) -> str:
    """`target` if it is a path on this site, else "/". The one check every redirect to a
    requested page goes through: a single leading "/", no scheme or host, no "//" or "/\\"
    start, no backslash and no control character, before or after percent-decoding
    (browsers drop tab and newline, so "/\\t/evil.com" would become "//evil.com")."""
    if not target:
        return "/"
    seen = target
    for _ in range(3):  # "%25" hides one more "%": look through a few layers
        if not _is_site_path(seen):
            return "/"
        decoded = unquote(seen)
        if decoded == seen:
            break
        seen = decoded
    else:
        return "/"
    return iri_to_uri(target)


def _is_site_path(path: str) -> bool:
    if not path.startswith("/") or path.startswith(("//", "/\\")) or "\\" in path:
        return False
    if any(unicodedata.category(ch)[0] == "C" for ch in path):
        return False  # control, format and unassigned characters, lone surrogates
    parts = urlsplit(path)
    return not parts.scheme and not parts.netloc


def client_ip() -> str:
    # Behind a reverse proxy, deploy with werkzeug's ProxyFix so remote_addr is the client.
    return request.remote_addr or "unknown"
