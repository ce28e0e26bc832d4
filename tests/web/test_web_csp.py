"""A Content-Security-Policy on every response, and a nonce on every inline script and
style (issue 10, section 6: responses carried no CSP, so one injected <script> would run)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_config, make_user, state, submit

from web import create_app

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"
PAGES = ["/", "/problems/add-two", "/login", "/register", "/leaderboard", "/submissions"]
INLINE = re.compile(r"<(script|style)\b([^>]*)>", re.IGNORECASE)


def directives(response: object) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")  # type: ignore[attr-defined]
    assert header, f"no Content-Security-Policy on {response}"
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def nonce_of(policy: dict[str, list[str]]) -> str:
    nonces = [v for v in policy["script-src"] if v.startswith("'nonce-")]
    assert len(nonces) == 1, policy["script-src"]
    return nonces[0][len("'nonce-") : -1]


@pytest.fixture
def idle_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    """No judging workers: a submission stays queued, so its page follows it live."""
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    yield app
    state(app).close()


def test_every_response_carries_a_strict_content_security_policy(client: FlaskClient) -> None:
    """Pins: no response had a CSP."""
    responses = [client.get(path) for path in PAGES]
    responses += [client.get("/api/problems"), client.get("/static/favicon.svg")]
    responses += [client.get("/no-such-page"), client.post("/login", data={})]
    for response in responses:
        response.close()  # the static file's handle
    assert responses[-2].status_code == 404 and responses[-1].status_code >= 400  # no CSRF
    for response in responses:
        policy = directives(response)
        assert policy["default-src"] == ["'self'"]
        assert set(policy["script-src"]) == {
            "'self'",
            "'wasm-unsafe-eval'",
            f"'nonce-{nonce_of(policy)}'",
        }
        assert "'unsafe-inline'" not in policy["style-src"]
        assert policy["object-src"] == ["'none'"]
        assert policy["base-uri"] == ["'none'"]
        assert policy["frame-ancestors"] == ["'none'"]
        assert policy["form-action"] == ["'self'"]


def test_every_inline_script_and_style_carries_this_requests_nonce(
    idle_app: Flask, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Pins: the no-bundle submission page's inline script would be blocked by the CSP
    (or the CSP would need 'unsafe-inline')."""
    monkeypatch.setattr("web.app.WEB_DIR", tmp_path)  # pages as served without the bundle
    client = idle_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, "def add(a, b):\n    return a + b\n")
    seen: set[str] = set()
    inline_scripts = 0
    for path in [*PAGES, f"/submissions/{sid}"]:
        response = client.get(path)
        nonce = nonce_of(directives(response))
        assert nonce not in seen, "a nonce was used twice"
        seen.add(nonce)
        for tag, attributes in INLINE.findall(response.get_data(as_text=True)):
            if "src=" in attributes or 'type="application/json"' in attributes:
                continue  # a file from 'self', or data that never runs
            inline_scripts += tag == "script"
            assert f'nonce="{nonce}"' in attributes, (path, tag, attributes)
    assert inline_scripts >= 1  # the submission page's live-follow script was checked


def test_templates_have_no_inline_event_handlers_or_javascript_urls() -> None:
    """A nonce cannot allow onclick= or javascript: URLs; the CSP would block them."""
    for template in TEMPLATES.glob("**/*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\son[a-z]+\s*=", text, re.IGNORECASE), template.name
        assert "javascript:" not in text.lower(), template.name
