"""The handbook's exercises inside its page (issue 38): the example site built by the MkDocs
plugin, served by a plain static file server, driven in Debian's Chromium.

A reader runs a wrong solution and sees its failing input and picture, then the reference
and sees it accepted, with no request to any origin but the static server's; and with the
site pointed at a live platform (`platform_url`, the platform's JUDGE_CORS_ORIGINS naming
the site), logs in from the page and gets a Submit's verdict in it.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools.threaded_server import serve_in_thread, url

from .conftest import JUDGE_SEED, PROBLEMS, ROOT
from .pages import shoot

pytestmark = [pytest.mark.browser]
EXAMPLE = ROOT / "examples" / "handbook"
PAGE = "kv-cache/"
SLUG = "kv-capacity"
WRONG = PROBLEMS / SLUG / "solutions" / "wrong" / "gib_for_gb.py"  # WA, with a memory picture
REFERENCE = PROBLEMS / SLUG / "reference.py"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def static_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Python's own static file server (no app, no special headers) over an empty folder;
    each test builds the site into it."""
    site = tmp_path_factory.mktemp("handbook-site")
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", site
    finally:
        server.shutdown()
        server.server_close()


def build_site(site: Path, platform_url: str = "") -> None:
    """`mkdocs build` of the example, as `make handbook` runs it, into `site`."""
    env = {**os.environ, "PRACTICE_PLATFORM_URL": platform_url, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "--clean", "-d", str(site)],
        cwd=EXAMPLE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def open_page(browser: Any, base: str) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    elsewhere: list[str] = []

    def seen(request: Any) -> None:
        if not request.url.startswith((base, "data:", "blob:")):
            elsewhere.append(request.url)

    page.on("request", seen)
    page.goto(f"{base}/{PAGE}")
    return context, page, elsewhere


def replace_code(embed: Any, source: str) -> None:
    """This embed's editor emptied and `source` put in, as a paste would."""
    embed.locator(".cm-content").click()
    embed.page.keyboard.press("Control+A")
    embed.page.keyboard.press("Delete")
    embed.page.keyboard.insert_text(source)


def run_and_wait(embed: Any) -> str:
    embed.locator('[data-action="run"]:not([disabled])').click()
    embed.locator(".report[data-verdict]").wait_for()
    embed.page.wait_for_function(
        "(e) => e.dataset.verdict && !e.querySelector('[aria-busy]')", arg=embed.element_handle()
    )
    return str(embed.get_attribute("data-verdict"))


@pytest.mark.slow
def test_a_reader_runs_a_wrong_solution_then_the_reference_in_the_chapter_page(
    browser: Any, dist: Path, static_server: tuple[str, Path]
) -> None:
    base, site = static_server
    build_site(site)
    context, page, elsewhere = open_page(browser, base)
    try:
        embeds = page.locator(".practice-embed")
        assert embeds.count() == 3  # the chapter's two exercises and its self-test
        assert [embeds.nth(i).get_attribute("data-problem") for i in range(3)] == [
            "tokens-processed",
            SLUG,
            "self-test",
        ]
        embed = page.locator(f'.practice-embed[data-problem="{SLUG}"]')
        embed.locator('[data-action="run"]:not([disabled])').wait_for(timeout=120_000)
        assert embed.locator('[data-role="results"]').count() == 1
        assert "练习题" in embed.locator("summary").first.inner_text()  # the site's language

        replace_code(embed, WRONG.read_text(encoding="utf-8"))
        assert run_and_wait(embed) == "WA"
        results = embed.locator('[data-role="results"]')
        # The first failing case opens by itself, with its input and its picture.
        assert results.locator("details.case-bad[open] .case-input").count() == 1, (
            results.inner_text()
        )
        assert results.locator("details.case-bad[open] .memory-picture svg").count() == 1
        shoot(page, "handbook-wrong")

        replace_code(embed, REFERENCE.read_text(encoding="utf-8"))
        assert run_and_wait(embed) == "AC"
        shoot(page, "handbook-accepted")

        # The other exercise on the page is untouched by this one's runs.
        other = page.locator('.practice-embed[data-problem="tokens-processed"]')
        assert other.get_attribute("data-verdict") is None

        # The self-test: an answer checked at the question's public points, in the page.
        quiz = page.locator('.practice-embed[data-problem="self-test"]')
        quiz.locator('[data-question="tokens-without-cache"] input.answer').fill("n * p")
        quiz.locator('[data-question="decode-intensity"] input.answer').fill("about one")
        quiz.locator('[data-action="run"]:not([disabled])').click()
        marked = quiz.locator('[data-question="tokens-without-cache"][data-verdict="WA"]')
        marked.wait_for()
        assert "n=3" in marked.locator(".quiz-mark").inner_text()
        # Not a number: said here in the page's language, not sent for the judge to refuse.
        number = quiz.locator('[data-question="decode-intensity"][data-verdict="CE"]')
        assert "这里要填一个数" in number.locator(".quiz-mark").inner_text()
        # A choice is marked only by the platform, which this site does not name.
        choice = quiz.locator('[data-question="why-reusable"]')
        # Unanswered, the first run marked it wrong: wait for this run's mark, not any mark.
        assert choice.get_attribute("data-verdict") == "WA"
        choice.locator('input[value="causal"]').check()
        quiz.locator('[data-action="run"]:not([disabled])').click()
        quiz.locator('[data-question="why-reusable"][data-verdict="unchecked"]').wait_for()
        assert "只有平台能判" in quiz.locator('[data-role="results"]').inner_text()
        assert elsewhere == [], elsewhere

        # A second visit: the code and the last result are still there, per page and problem.
        page.reload()
        embed = page.locator(f'.practice-embed[data-problem="{SLUG}"][data-verdict="AC"]')
        embed.wait_for()
        assert "def " in embed.locator(".cm-content").inner_text()
        assert elsewhere == [], elsewhere
    finally:
        context.close()


@pytest.fixture(scope="module")
def platform(
    dist: Path, static_server: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A live platform that lets the static site's origin call its API."""
    from web import create_app
    from web.config import RateLimit, WebConfig, sqlite_url
    from web.state import EXTENSION

    folder = tmp_path_factory.mktemp("handbook-platform")
    plenty = RateLimit(100_000, 3600.0)
    config = WebConfig(
        database_url=sqlite_url(folder / "judge.sqlite3"),
        problems_dir=PROBLEMS,
        secret_key="e2e-" + os.urandom(16).hex(),
        judge_seed=JUDGE_SEED,
        workers=1,
        judge_backend="unsafe-local",  # a loopback test server
        register_per_ip=plenty,
        login_per_ip=plenty,
        login_per_user=plenty,
        cors_origins=(static_server[0],),
    )
    app = create_app(config)
    try:
        with serve_in_thread(app, name="waitress-handbook", threads=4) as server:
            yield url(server)
    finally:
        app.extensions[EXTENSION].close()


@pytest.mark.slow
def test_a_reader_logs_in_from_the_page_and_submits_to_the_platform(
    browser: Any, platform: str, static_server: tuple[str, Path]
) -> None:
    import json
    import urllib.request

    base, site = static_server
    build_site(site, platform_url=platform)
    body = json.dumps({"username": "reader", "password": "a long enough password"}).encode()
    request = urllib.request.Request(
        f"{platform}/api/register", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201
    context, page, elsewhere = open_page(browser, base)
    try:
        embed = page.locator('.practice-embed[data-problem="tokens-processed"]')
        embed.locator('[data-action="login"]').wait_for()
        embed.locator('input[name="username"]').fill("reader")
        embed.locator('input[name="password"]').fill("a long enough password")
        embed.locator('[data-action="login"]').click()
        # Every embed of the page shows the one log-in.
        page.locator('.practice-embed [data-action="logout"]').nth(2).wait_for()
        replace_code(embed, (PROBLEMS / "tokens-processed" / "reference.py").read_text("utf-8"))
        embed.locator('[data-action="submit"]').click()
        live = embed.locator(
            ".practice-submissions .submission[data-verdict]:not([data-verdict=''])"
        )
        live.wait_for(timeout=120_000)
        assert live.get_attribute("data-verdict") == "AC", live.inner_text()
        board = embed.locator(".practice-submissions a[href$='/leaderboard/tokens-processed']")
        assert board.get_attribute("href") == f"{platform}/leaderboard/tokens-processed"
        shoot(page, "handbook-submitted")
        # Only the static server and the configured platform were asked for anything.
        assert all(u.startswith(platform) for u in elsewhere), elsewhere
    finally:
        context.close()


@pytest.mark.slow
def test_the_embed_takes_the_pages_colours_and_keeps_unread_hints_hidden(
    browser: Any, dist: Path, static_server: tuple[str, Path]
) -> None:
    """mkdocs-material draws every <details> as an admonition and shows hidden ones; the
    embed's own rules win inside it. Dark follows the page's palette, not the system's."""
    base, site = static_server
    build_site(site)
    context = browser.new_context(locale="zh-CN", color_scheme="dark")
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(f"{base}/{PAGE}")
        embed = page.locator(f'.practice-embed[data-problem="{SLUG}"]')
        embed.locator(".hints").wait_for()
        hints = embed.locator("details.hint")
        assert hints.count() >= 2
        assert embed.locator("details.hint:visible").count() == 0  # none read yet
        button = embed.locator('[data-action="next-hint"]')
        assert button.inner_text() == f"看第 1 条提示（共 {hints.count()} 条）"
        button.click()
        assert embed.locator("details.hint:visible").count() == 1
        icon = "(e) => getComputedStyle(e.querySelector('summary'), '::before').content"
        assert embed.locator(".practice-statement").evaluate(icon) in ("none", "normal")

        background = "(e) => getComputedStyle(e).backgroundColor"
        # The system is dark, the page is material's light palette: the embed stays light.
        assert embed.evaluate(background) == "rgb(255, 255, 255)"
        page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'slate')")
        assert embed.evaluate(background) != "rgb(255, 255, 255)"
        # The theme's code colour is its light palette's; the embed's own wins (once the
        # theme's colour transition has run).
        same = "(e) => getComputedStyle(e.querySelector('.statement code')).color === getComputedStyle(e).color"
        page.wait_for_function(same, arg=embed.element_handle(), timeout=5_000)
        shoot(page, "handbook-dark-page")

        # On a phone a failing case's picture scrolls in its own box: the page never widens.
        page.set_viewport_size({"width": 390, "height": 844})
        embed.locator('[data-action="run"]:not([disabled])').wait_for(timeout=120_000)
        replace_code(embed, WRONG.read_text(encoding="utf-8"))
        assert run_and_wait(embed) == "WA"
        assert embed.locator("details.case-bad[open] .memory-picture svg").count() == 1
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        shoot(page, "handbook-phone-picture")
    finally:
        context.close()
