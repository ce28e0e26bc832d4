"""Cross-origin access to the API for the handbook's pages (JUDGE_CORS_ORIGINS).

A handbook built with the MkDocs plugin (handbook/) and `platform_url` set calls this API
from its own origin: a log-in for a token (POST /api/token), then Submit and Run with that
token. Only the configured origins are answered with CORS headers, and never with
`Access-Control-Allow-Credentials`: a browser then neither sends this site's cookies with
such a call nor shows the page a cookie-borne answer, so the cookie's CSRF rule
(web/app.py) is not loosened: a cross-origin call is a bearer-token call or nothing.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, request

ALLOWED_HEADERS = "Authorization, Content-Type"
ALLOWED_METHODS = "GET, POST"
PREFLIGHT_CACHE_S = 600


def parse_origins(raw: str) -> tuple[str, ...]:
    """JUDGE_CORS_ORIGINS: comma-separated origins (scheme://host[:port]); ValueError for
    anything else, named (a path, a wildcard, a typo are refused at start, not ignored)."""
    origins = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        parts = urlsplit(item)
        try:
            has_port = parts.port is not None
        except ValueError:  # a port past 65535, or not a number
            has_port, parts = False, urlsplit("")
        rebuilt = f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if has_port else "")
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or item.rstrip("/") != rebuilt
        ):
            raise ValueError(
                f"JUDGE_CORS_ORIGINS holds {item!r}: each must be an origin like "
                "https://handbook.example.org (scheme, host and port only)"
            )
        origins.append(rebuilt)
    return tuple(origins)


def register(app: Flask, origins: tuple[str, ...]) -> None:
    """Answer the API's calls from `origins` with the headers that let their pages read it."""
    allowed = frozenset(origins)
    if not allowed:
        return

    @app.after_request
    def cross_origin(response: Response) -> Response:
        if not request.path.startswith("/api/"):
            return response
        response.vary.add("Origin")
        origin = request.headers.get("Origin", "")
        if origin not in allowed:
            return response
        response.headers["Access-Control-Allow-Origin"] = origin
        # The platform's pages are cross-origin isolated (COEP require-corp); an answer
        # read by another origin's page must say it may be.
        response.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
        if request.method == "OPTIONS":
            response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
            response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_CACHE_S)
        return response
