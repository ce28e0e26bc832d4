"""One log line per request (logger `web.access`, INFO): method, path, status, duration,
user id and a request id, which the response carries as X-Request-ID.

The path is logged without its query string. `judge serve` sends these lines to stderr.
"""

from __future__ import annotations

import logging
import secrets
import time

from flask import Flask, Response, g, request

from web.serving.logsafe import printable

log = logging.getLogger("web.access")
REQUEST_ID_HEADER = "X-Request-ID"


def register(app: Flask) -> None:
    """Call before any other hook is registered: the clock starts first and reads last."""

    @app.before_request
    def start_clock() -> None:
        g.request_started = time.perf_counter()
        g.request_id = secrets.token_hex(8)

    @app.after_request  # after_request hooks run in reverse order: this one runs last
    def log_request(response: Response) -> Response:
        request_id = g.get("request_id") or secrets.token_hex(8)
        response.headers[REQUEST_ID_HEADER] = request_id
        started = g.get("request_started")
        ms = 0.0 if started is None else (time.perf_counter() - started) * 1000
        viewer = g.get("viewer")
        user = str(viewer.id) if viewer is not None else "-"
        fields = {
            "method": request.method,
            "path": printable(request.path),  # also escaped for structured handlers
            "status": response.status_code,
            "duration_ms": round(ms, 1),
            "user_id": user,
            "request_id": request_id,
        }
        log.info("%s %s %d %.1fms user=%s request=%s", *fields.values(), extra={"access": fields})
        return response
