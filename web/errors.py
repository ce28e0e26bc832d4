"""One error shape for the API, {"error": {"status", "code", "message"}}, and HTML for pages."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from web.i18n import say

log = logging.getLogger(__name__)

# Stable machine-readable codes for the HTTP errors werkzeug raises on its own.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
}


class DomainError(Exception):
    """A rule of the platform that a request broke, said without HTTP: the domain modules
    (catalog, submissions, rate limits) raise these; `STATUS_OF` maps them to a status in
    this one place."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class NotFound(DomainError):
    """No such thing, or one this viewer may not see (the same answer for both)."""


class Invalid(DomainError):
    """A value that breaks a rule (names the field)."""


class RateLimited(DomainError):
    """Too many events for one key, or no free slot for one more (`code` says which);
    says when to retry."""

    def __init__(self, message: str, retry_after: int, code: str = "rate_limited") -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class Conflict(DomainError):
    """A request that repeats something already done or under way (names what it repeats)."""


STATUS_OF: dict[type[DomainError], int] = {
    NotFound: 404,
    Invalid: 400,
    RateLimited: 429,
    Conflict: 409,
}


class ApiError(Exception):
    """A user-caused error with a status, a stable code and a message fit to show."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        if self.retry_after is not None:
            error["retry_after"] = self.retry_after
        return {"error": error}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/api"


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(DomainError, _domain_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OperationalError, _store_unavailable)
    app.register_error_handler(Exception, _unexpected)


STORE_RETRY_S = 5


def _store_unavailable(exc: OperationalError) -> Any:
    """The database cannot be reached (PostgreSQL down or restarting, SQLite locked past
    its timeout): the server is not broken and the request was fine, so it is a 503 to
    retry, not a 500. Logged in one line: an outage would otherwise fill the log with
    one traceback per request."""
    log.warning(
        "database unavailable on %s %s: %s", request.method, request.path, str(exc.orig)[:200]
    )
    message = say("err_store_unavailable", retry=STORE_RETRY_S)
    return _api_error(ApiError(503, "store_unavailable", message, retry_after=STORE_RETRY_S))


def _unexpected(exc: Exception) -> Any:
    """The last resort: a bug, not bad input (every input error has its own answer). The
    traceback goes to the server's log; the client gets the one error shape, nothing more."""
    log.exception("unhandled %s on %s %s", type(exc).__name__, request.method, request.path)
    return _api_error(ApiError(500, "internal_error", say("err_internal")))


def _domain_error(exc: DomainError) -> tuple[Response | str, int, dict[str, str]]:
    retry = exc.retry_after if isinstance(exc, RateLimited) else None
    status = STATUS_OF[type(exc)]
    return _api_error(ApiError(status, exc.code, exc.message, field=exc.field, retry_after=retry))


def _api_error(exc: ApiError) -> tuple[Response | str, int, dict[str, str]]:
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else {}
    if wants_json():
        return jsonify(exc.body()), exc.status, headers
    page = render_template("error.html", status=exc.status, message=exc.message)
    return page, exc.status, headers


def _http_error(exc: HTTPException) -> Any:
    status = exc.code or 500
    message = _http_message(status, exc)
    return _api_error(ApiError(status, _HTTP_CODES.get(status, "http_error"), message))


def _http_message(status: int, exc: HTTPException) -> str:
    if status == 413:
        return say("err_http_413")
    if status == 404:
        return say("err_http_404")
    if status == 405:
        return say("err_http_405", method=request.method)
    return say("err_http_other", description=exc.description or exc.name, status=status)
