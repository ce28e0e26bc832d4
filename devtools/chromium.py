"""Debian's headless Chromium, as the end-to-end tests and the browser benchmark drive it
through Playwright: the system's browser, never a downloaded one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
# Headless and quiet: no sandbox inside a container, no GPU, and nothing of its own on the
# network (updates, sync, QUIC), so a timing or a test sees only the app's traffic.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def launch(playwright: Any) -> Any:
    """The browser, from a running `sync_playwright()`; the caller closes it."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
