"""The Content-Security-Policy on every response, with a fresh nonce per request.

Scripts and styles come from this origin, or are inline with the request's nonce
(`csp_nonce()` in templates). 'wasm-unsafe-eval' lets Pyodide compile its WebAssembly
without allowing JavaScript eval. Style *attributes* stay allowed: KaTeX lays formulas
out with them; they cannot run script, and url() in them still meets img-src 'self'.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g

HEADER = "Content-Security-Policy"


def csp_nonce() -> str:
    """This request's nonce, made on first use."""
    nonce: str | None = g.get("csp_nonce")
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(18)
    return nonce


def policy(nonce: str) -> str:
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'",
            f"style-src 'self' 'nonce-{nonce}'",
            "style-src-attr 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self' blob:",  # Pyodide fetches its stdlib from a blob: URL
            "worker-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'self'",
        )
    )


def register(app: Flask) -> None:
    @app.after_request
    def content_security_policy(response: Response) -> Response:
        response.headers.setdefault(HEADER, policy(csp_nonce()))
        return response

    @app.context_processor
    def nonce_global() -> dict[str, object]:
        return {"csp_nonce": csp_nonce}
