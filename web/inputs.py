"""Reading request input: JSON bodies, query integers and the client's address."""

from __future__ import annotations

from typing import Any

from flask import request

from web.errors import ApiError


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 saying exactly what is wrong with it."""
    if not request.is_json:
        raise ApiError(
            415, "unsupported_media_type", "send the body as JSON (Content-Type: application/json)"
        )
    body = request.get_json(silent=True)
    if body is None:
        raise ApiError(400, "malformed_json", "the body is not valid UTF-8 JSON")
    if not isinstance(body, dict):
        raise ApiError(400, "malformed_json", "the JSON body must be an object")
    return body


def required_str(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if value is None:
        raise ApiError(400, "missing_field", f"{name} is required", field=name)
    if not isinstance(value, str):
        raise ApiError(400, "invalid_field", f"{name} must be a string", field=name)
    return value


def int_arg(name: str, default: int, *, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "invalid_query", f"{name} must be an integer", field=name) from None
    if not low <= value <= high:
        raise ApiError(400, "invalid_query", f"{name} must be between {low} and {high}", field=name)
    return value


def client_ip() -> str:
    # Behind a reverse proxy, deploy with werkzeug's ProxyFix so remote_addr is the client.
    return request.remote_addr or "unknown"
