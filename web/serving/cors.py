"""Cross-origin access to the API for the handbook's pages (JUDGE_CORS_ORIGINS).

A handbook built with the MkDocs plugin (handbook/) and `platform_url` set calls this API
from its own origin: a log-in for a token (POST /api/token), then Submit and Run with that
token. Only the configured origins are answered with CORS headers, and never with
`Access-Control-Allow-Credentials`: a browser then neither sends this site's cookies with
such a call nor shows the page a cookie-borne answer, so the cookie's CSRF rule
(web/app.py) is not loosened: a cross-origin call is a bearer-token call or nothing.
"""

from __future__ import annotations

from flask import Flask, Response, request

ALLOWED_HEADERS = "Authorization, Content-Type"
ALLOWED_METHODS = "GET, POST, DELETE"  # DELETE /api/token: the page's Log out revokes its token
PREFLIGHT_CACHE_S = 600


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
