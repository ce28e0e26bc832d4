"""Run on a torch-tier problem in real Chromium: the page posts the code to the server,
which judges the public cases in the real sandbox (the runner's warm workers, as `judge
serve` does by default), and the results render case by case as a browser Run's do; a
serving engine's failing case draws its run's timeline beside the reference's."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from devtools.threaded_server import serve_in_thread, url

from .conftest import JUDGE_SEED, PROBLEMS
from .pages import ARTIFACTS, ROOT, RUN, reference_source, register, replace_code, shoot

pytestmark = [pytest.mark.browser, pytest.mark.sandbox, pytest.mark.slow]
SLUG = "attention-decode"
# A torch run: a cold sandbox worker imports torch, then the reference and the cases run.
RUN_TIMEOUT_MS = 180_000


@pytest.fixture(scope="module")
def sandbox_server(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The platform judging in the sandbox (the other e2e tests use unsafe-local)."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: no sandboxed judging here")
    from web import create_app
    from web.config import WebConfig, sqlite_url
    from web.state import EXTENSION

    folder = tmp_path_factory.mktemp("sandboxed")
    config = WebConfig(
        database_url=sqlite_url(folder / "judge.sqlite3"),
        problems_dir=PROBLEMS,
        secret_key="e2e-" + os.urandom(16).hex(),
        judge_seed=JUDGE_SEED,
        workers=1,
        judge_backend="sandbox",
        ready_seeds=0,  # no seed stock working beside the judgings under test
    )
    app = create_app(config)
    try:
        with serve_in_thread(app, name="waitress-sandbox", threads=4) as server:
            yield url(server)
    finally:
        app.extensions[EXTENSION].close()


@contextmanager
def torch_problem_page(browser: Any, server: str, prefix: str, slug: str = SLUG) -> Iterator[Any]:
    """A new learner on `slug`'s page, in a context of its own; no uncaught page errors."""
    context = browser.new_context(base_url=server, locale="en-US")
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        register(page, prefix=prefix)
        page.goto(f"/problems/{slug}")
        page.wait_for_selector(".workspace .cm-content")
        yield page
    finally:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def test_run_on_a_torch_problem_judges_its_public_cases_on_the_server(
    browser: Any, sandbox_server: str
) -> None:
    with torch_problem_page(browser, sandbox_server, "torch") as page:
        assert page.locator(RUN).is_enabled(), "Run is offered on a torch-tier problem"
        replace_code(page, reference_source(SLUG))
        page.keyboard.press("Control+Enter")  # the editor's shortcut runs, as for Pyodide
        page.wait_for_selector("[data-panel=results][data-state=running]")
        assert "on the server" in page.inner_text("[data-panel=results]")
        report = page.wait_for_selector(".report[data-verdict]", timeout=RUN_TIMEOUT_MS)
        shoot(page, "20-server-run")
        assert report.get_attribute("data-verdict") == "AC", report.inner_text()
        cases = page.locator(".report .case")
        assert cases.count() >= 2
        assert page.locator(".report .case .badge-ac").count() == cases.count()
        assert page.locator(RUN).is_enabled()
        # Nothing was stored: the Submissions tab and the board are still empty.
        history = page.request.get(f"/api/submissions?problem={SLUG}").json()
        assert history["submissions"] == []
        assert page.request.get(f"/api/leaderboard/{SLUG}").json()["entries"] == []


def test_try_your_input_on_a_torch_problem_runs_your_code_beside_the_reference_on_the_server(
    browser: Any, sandbox_server: str
) -> None:
    with torch_problem_page(browser, sandbox_server, "torchtry") as page:
        wrong = ROOT / "problems" / SLUG / "solutions" / "wrong" / "no_scale.py"
        replace_code(page, wrong.read_text(encoding="utf-8"))
        page.click("button[data-tab=try]")
        args = {"batch": 2, "q_heads": 4, "kv_heads": 2, "head_dim": 8, "cached": 6, "seed": 3}
        page.fill("[data-panel=try] textarea.try-text", json.dumps(args))
        page.click("[data-panel=try] button[data-action=try]")
        assert "on the server" in page.inner_text("[data-panel=try] .try-out")
        report = page.wait_for_selector(
            "[data-panel=try] .report[data-verdict]", timeout=RUN_TIMEOUT_MS
        )
        shoot(page, "21-server-try-input")
        assert report.get_attribute("data-verdict") == "WA", report.inner_text()
        assert page.inner_text("[data-panel=try] .try-reference pre").strip()
        assert "null" not in page.inner_text("[data-panel=try] .try-out")
        assert page.request.get(f"/api/submissions?problem={SLUG}").json()["submissions"] == []


def test_a_serving_engine_that_starves_a_request_shows_its_timeline_beside_the_references(
    browser: Any, sandbox_server: str
) -> None:
    """Issue 25: the capstone's picture. The wrong engine sends a preempted request to the
    back of the queue; its card draws both runs, and the long request's row is where the
    two differ: preempted and recomputed again and again in the learner's run."""
    slug, case = "serve-engine", "long-request-among-short-ones"
    wrong = ROOT / "problems" / slug / "solutions" / "wrong" / "starves_long_request.py"
    with torch_problem_page(browser, sandbox_server, "timeline", slug=slug) as page:
        replace_code(page, wrong.read_text(encoding="utf-8"))
        page.click(RUN)
        report = page.wait_for_selector(".report[data-verdict]", timeout=RUN_TIMEOUT_MS)
        assert report.get_attribute("data-verdict") == "WA", report.inner_text()
        picture = page.locator(f".case[data-case={case}] .timeline-picture")
        picture.wait_for()
        expected = picture.locator("figure[data-side=expected]")
        got = picture.locator("figure[data-side=got]")
        assert "Reference:" in expected.locator("figcaption").inner_text()
        caption = got.locator("figcaption").inner_text()
        assert "Yours:" in caption
        # Each count after its name, right for one as for many ("recomputations 1", never
        # "1 recomputations").
        assert re.search(r"recomputations \d+ · blocks held at most \d+ of \d+", caption), caption
        assert not re.search(r"\b1 (steps|recomputations|prefill chunks)\b", caption), caption
        # One row per request (41), the long one (id 10) among them.
        requests = {
            int(n)
            for n in got.locator("g.timeline-cell").evaluate_all(
                "cells => cells.map(c => c.dataset.request)"
            )
        }
        assert requests == set(range(41))
        long_one = "g.timeline-cell[data-request='10'][data-kind=recompute]"
        assert got.locator(long_one).count() > expected.locator(long_one).count() > 0
        # Not colour alone: a recomputed cell says R, and the image describes itself.
        svg = got.locator("svg[role=img]")
        assert "timeline of" in (svg.locator("title").text_content() or "")
        assert "request 10:" in (svg.locator("desc").text_content() or "")
        assert got.locator(long_one).first.inner_html().count(">R<") == 1
        assert got.locator("rect.timeline-blocks").count() > 10, "blocks held, step by step"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        picture.scroll_into_view_if_needed()
        picture.screenshot(path=str(ARTIFACTS / "22-serve-engine-timeline.png"))
