"""Reading request input: JSON bodies, query integers, redirect targets and the client's
address. Everything a request sends is checked here, where it enters, so that no handler
sees text it cannot store or a number the database cannot hold."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, TypeGuard
from urllib.parse import unquote, urlsplit

from flask import Flask, request
from werkzeug.urls import iri_to_uri

from web.errors import ApiError
from web.i18n import say
from web.serving.client_address import client_key

# The largest id a row can have: the id columns are INTEGER, 4 bytes on PostgreSQL (SQLite
# would hold 2**63 - 1, but the answer must not depend on the database). A larger id names
# nothing: it is a 404 where it enters, never a query PostgreSQL refuses with an error.
MAX_ID = 2**31 - 1
# A JSON body nested deeper than this is refused before anything walks it.
MAX_JSON_DEPTH = 32


def is_row_id(value: object) -> TypeGuard[int]:
    """True for an int some row could have as its id (a bool is not one)."""
    return type(value) is int and 0 < value <= MAX_ID


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


def client_address() -> str:
    """The client this request counts as for every per-address limit: its address, an IPv6
    one by its /64 (web/serving/client_address.py). Behind a reverse proxy, deploy with
    werkzeug's ProxyFix so that remote_addr is the client's."""
    return client_key(request.remote_addr or "unknown")


# The environ key under which the Host header the client sent is kept once refused.
REFUSED_HOST = "judge.refused_host"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def register(app: Flask) -> None:
    """Refuse, before any view runs, what no route could store or route: a Host header
    that is no host name, and NUL in a path parameter, a query or a form."""
    app.wsgi_app = _refuse_bad_host(app.wsgi_app)  # type: ignore[method-assign]
    app.before_request(_refuse_unstorable_input)


def _refuse_bad_host(wsgi_app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """werkzeug cannot bind the URL map to a host with a label of 64+ characters (or an
    empty one: "a..b"), so the request would have no URL adapter and every page, the error
    page included, would fail building its links. The header is taken away (the URLs are
    then built on the server's own name) and kept for the hook below, which answers 400."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        if host is not None and not _is_host_name(host):
            environ[REFUSED_HOST] = environ.pop("HTTP_HOST")
        return wsgi_app(environ, start_response)

    return app


# Never in a host name or port: control characters and space (a NUL passes IDNA, and the
# URLs built on such a host lost it: a redirect went to "http:///..."), and what would end
# the authority of a URL or start another part of it.
_NOT_IN_HOST = frozenset(chr(c) for c in range(0x21)) | frozenset('\x7f/\\?#@%"<>^`{|}')


def _is_host_name(host: str) -> bool:
    if any(c in _NOT_IN_HOST for c in host):
        return False
    name = host.partition(":")[0]  # what werkzeug encodes: the port is not IDNA
    if name.startswith("["):
        return True  # an IPv6 literal; werkzeug does not encode it either
    try:
        name.encode("idna")
    except UnicodeError:
        return False
    return True


def _refuse_unstorable_input() -> None:
    if REFUSED_HOST in request.environ:
        raise ApiError(400, "bad_host", say("err_bad_host"))
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str) and "\x00" in value:
            # A path names something, and no name holds a NUL (PostgreSQL refuses it).
            raise ApiError(404, "not_found", say("err_nul_path", field=name))
    _refuse_nul(request.args.items(multi=True), "invalid_query", "query")
    if request.mimetype in FORM_TYPES:
        _refuse_nul(request.form.items(multi=True), "invalid_field", "form")


def _refuse_nul(pairs: Iterable[tuple[str, str]], code: str, where: str) -> None:
    for key, value in pairs:
        if "\x00" in key or "\x00" in value:
            named = key.isprintable() and len(key) <= 64  # "\x00" is not printable
            field = key if named else where
            raise ApiError(400, code, say("err_nul", field=field), field=field)
