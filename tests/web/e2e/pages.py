"""Steps a learner takes in the browser, shared by the end-to-end tests."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
SLUG = "kv-bytes-per-token"
# Python boots in the worker while the test waits; a cold start is a few seconds.
BOOT_TIMEOUT_MS = 60_000
RUN = "button[data-action=run]"
STOP = "button[data-action=stop]"
SUBMIT = "button[data-action=submit]"

_names = itertools.count()


def reference_source(slug: str = SLUG) -> str:
    return (ROOT / "problems" / slug / "reference.py").read_text(encoding="utf-8")


def shoot(page: Any, name: str) -> Path:
    """A full-page screenshot kept under test-artifacts/ for people to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


PASSWORD = "correct horse battery staple"  # every test account's


def register(page: Any, prefix: str = "learner", screenshot: str | None = None) -> str:
    username = f"{prefix}{os.getpid() % 10_000}x{next(_names)}"
    page.goto("/register")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    if screenshot:
        shoot(page, screenshot)
    page.click("#register-form button[type=submit]")
    page.wait_for_url("**/")
    return username


def save_draft(page: Any, code: str) -> None:
    """Type `code` into the editor and wait until the server holds it as the draft."""
    with page.expect_response(
        lambda r: r.url.endswith("/draft") and r.request.method == "PUT" and r.ok
    ):
        replace_code(page, code)


def log_in_elsewhere(browser: Any, page: Any, username: str) -> tuple[Any, Any]:
    """A fresh browser context (another device) logged in as `username`: (context, page).
    The caller closes the context."""
    other = browser.new_context(base_url=page.url.split("/problems/")[0])
    try:
        tab = other.new_page()
        tab.goto("/login")
        tab.fill("input[name=username]", username)
        tab.fill("input[name=password]", PASSWORD)
        tab.click("#login-form button[type=submit]")
        tab.wait_for_url("**/")
    except BaseException:
        other.close()
        raise
    return other, tab


def open_problem(page: Any, slug: str = SLUG) -> None:
    page.goto(f"/problems/{slug}")
    page.wait_for_selector(".workspace .cm-content")


# Reading a width lays the page out, which starts the web fonts' loads (KaTeX's); until
# they arrive a formula is laid out in a fallback font and can be 10% narrower, so a
# measurement taken then is not the one a reader sees.
FONTS_SETTLED = """() => {
  void document.body.offsetWidth;
  return document.fonts.ready.then(() => document.fonts.status);
}"""


def wait_for_fonts(page: Any) -> None:
    """Return once every web font the page's layout asked for has loaded."""
    page.evaluate(FONTS_SETTLED)


def wait_until_python_ready(page: Any) -> None:
    page.wait_for_selector(f"{RUN}:not([disabled])", timeout=BOOT_TIMEOUT_MS)


def replace_code(page: Any, source: str) -> None:
    """Select all in the editor and put `source` in, as a paste would."""
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def editor_text(page: Any) -> str:
    """The editor's text as displayed (every line of a short file is rendered)."""
    lines = page.locator(".cm-content .cm-line").all_inner_texts()
    return "\n".join(line.replace("\u200b", "") for line in lines)
