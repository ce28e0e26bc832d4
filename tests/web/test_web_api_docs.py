"""docs/API.md and the app agree: every documented endpoint exists, every API route is
documented, and every error code the code can raise is in the table."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "API.md").read_text(encoding="utf-8")
METHODS = ("GET", "POST", "PUT", "DELETE")
ENDPOINT = re.compile(r"`(GET|POST|PUT|DELETE) (/api/[^`?\s]*)")


def documented() -> set[tuple[str, str]]:
    return {(m, re.sub(r"<[^>]+>", "<>", p)) for m, p in ENDPOINT.findall(DOC)}


def routed(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<[^>]+>", "<>", rule.rule)
        out |= {(m, path) for m in (rule.methods or ()) if m in METHODS}
    return out


def test_every_documented_endpoint_exists(app: Flask) -> None:
    assert documented() <= routed(app)


def test_every_api_route_is_documented(app: Flask) -> None:
    assert routed(app) <= documented()


def test_every_error_code_raised_is_documented() -> None:
    codes = set()
    for path in (REPO / "web").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r"ApiError\(\s*\d{3},\s*\"([a-z_]+)\"", text))
        codes |= set(re.findall(r"\d{3}: \"([a-z_]+)\"", text))
    codes -= {"http_error"}  # the fallback for statuses without a name of their own
    codes -= {"unknown_language"}  # raised only by the page route /lang/<code>
    missing = sorted(c for c in codes if f"`{c}`" not in DOC)
    assert codes and missing == []
