"""A learner's day in real headless Chromium against the running app: register, open a
problem, Run in the browser, Stop a runaway loop, Submit, find yourself on the board."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .pages import (
    BOOT_TIMEOUT_MS,
    RUN,
    STOP,
    SUBMIT,
    editor_text,
    open_problem,
    reference_source,
    register,
    replace_code,
    shoot,
    wait_until_python_ready,
)

pytestmark = pytest.mark.browser

RUNAWAY = "def kv_bytes_per_token(config, kv_dtype):\n    while True:\n        pass\n"


def test_learner_runs_in_the_browser_submits_and_reaches_the_leaderboard(page: Any) -> None:
    username = register(page, screenshot="00-register")
    shoot(page, "01-problem-list")
    page.click("a[href='/problems/kv-bytes-per-token']")
    page.wait_for_selector(".workspace .cm-content")
    assert page.locator(".statement .katex").count() > 0, "the statement's math is typeset"
    wait_until_python_ready(page)
    shoot(page, "02-problem-ready")

    replace_code(page, reference_source())
    page.click(RUN)
    report = page.wait_for_selector(".report[data-verdict=AC]")
    cases = page.locator(".report .case")
    assert cases.count() >= 6
    assert page.locator(".report .case .badge-ac").count() == cases.count()
    assert re.search(r"(\d+) / \1 passed", report.inner_text())
    shoot(page, "03-run-accepted")

    page.click(SUBMIT)
    verdict = page.wait_for_selector(".live .submission[data-verdict]:not([data-verdict=''])")
    assert verdict.get_attribute("data-verdict") == "AC"
    shoot(page, "04-submit-accepted")

    page.goto("/")
    assert page.locator("tr[data-slug=kv-bytes-per-token] td.progress-solved").count() == 1
    assert page.locator(".chapter-progress .count").first.inner_text().startswith("1 / ")
    shoot(page, "05-progress")

    page.goto("/leaderboard")
    row = page.locator("#leaderboard tbody tr", has_text=username)
    assert row.count() == 1
    assert "is-me" in (row.get_attribute("class") or "")
    assert row.locator("td").nth(2).inner_text().strip() == "1"  # solved
    shoot(page, "06-leaderboard")


def test_stop_terminates_the_worker_when_the_page_is_not_isolated(
    page: Any, plain_url: str
) -> None:
    page.goto(f"{plain_url}/problems/kv-bytes-per-token")
    wait_until_python_ready(page)
    assert page.evaluate("crossOriginIsolated") is False
    boot = page.get_attribute(".runtime-text", "data-boot")
    replace_code(page, RUNAWAY)
    page.click(RUN)
    page.wait_for_selector(f"{STOP}:not([hidden])")
    page.wait_for_timeout(300)  # let the loop really start
    page.click(STOP)
    page.wait_for_selector(".panel .notice-warn")
    assert "Stopped" in page.inner_text("[data-panel=results]")
    shoot(page, "07-stopped")

    # A fresh worker (a new boot record) runs real code.
    replace_code(page, reference_source())
    wait_until_python_ready(page)
    assert page.get_attribute(".runtime-text", "data-boot") != boot
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")


def test_stop_interrupts_python_in_place_on_the_isolated_page(page: Any) -> None:
    """The app sends COOP/COEP, so the page shares memory with its worker."""
    open_problem(page)
    wait_until_python_ready(page)
    assert page.evaluate("crossOriginIsolated") is True
    boot = page.get_attribute(".runtime-text", "data-boot")
    replace_code(page, RUNAWAY)
    page.click(RUN)
    page.wait_for_selector(f"{STOP}:not([hidden])")
    page.wait_for_timeout(300)
    page.click(STOP)
    page.wait_for_selector(".panel .notice-warn")
    wait_until_python_ready(page)
    # The same interpreter answered: no new worker booted (its boot record is unchanged).
    assert page.get_attribute(".runtime-text", "data-boot") == boot
    replace_code(page, reference_source())
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")


def test_time_limit_ends_a_runaway_run_without_a_click(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    replace_code(page, RUNAWAY)
    page.click(RUN)
    notice = page.wait_for_selector(".panel .notice-warn", timeout=30_000)
    assert "Time limit exceeded" in notice.inner_text()
    wait_until_python_ready(page)


def test_failures_show_got_expected_and_point_at_the_editor_line(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    wrong = (
        "def kv_bytes_per_token(config, kv_dtype):\n"
        "    layers = config['num_hidden_layers']\n"
        "    if 'kv_lora_rank' in config:\n"
        "        raise ValueError('no MLA yet')\n"
        "    return layers\n"
    )
    replace_code(page, wrong)
    page.keyboard.press("Control+Enter")  # the editor's run shortcut
    page.wait_for_selector(".report")
    wa = page.locator(".case", has=page.locator(".badge-wa")).first
    assert wa.evaluate("element => element.open"), "the first failing case starts open"
    assert wa.locator(".value.got").inner_text().strip() == "28"
    assert wa.locator(".value.expected").inner_text().strip() == "114688"

    errored = page.locator(".case", has=page.locator(".badge-re")).first
    assert "ValueError" in errored.inner_text()
    errored.locator(".line-link").click()
    marked = page.locator(".cm-error-line")
    assert marked.count() >= 1
    assert "raise ValueError" in marked.first.inner_text()
    shoot(page, "08-failures")


def test_code_is_autosaved_per_problem_and_reset_restores_the_starter(page: Any) -> None:
    open_problem(page)
    starter = editor_text(page)
    assert "NotImplementedError" in starter
    replace_code(page, "# my work in progress\n")
    page.wait_for_timeout(600)  # autosave is debounced
    page.reload()
    page.wait_for_selector(".workspace .cm-content")
    assert editor_text(page).startswith("# my work in progress")

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button[data-action=reset]")
    assert editor_text(page) == starter


def test_page_loads_nothing_from_outside_the_app(fresh_page: Any, live_server: Any) -> None:
    page = fresh_page  # a first visit: everything it needs is fetched, nothing cached
    requested: list[str] = []
    page.context.on("request", lambda request: requested.append(request.url))
    open_problem(page)
    wait_until_python_ready(page)
    page.click(RUN)
    page.wait_for_selector(".report")
    outside = [url for url in requested if not url.startswith((live_server.url, "blob:", "data:"))]
    assert requested and not outside


def test_a_second_open_restores_python_from_its_snapshot_and_runs(fresh_page: Any) -> None:
    page = fresh_page  # a first visit: no snapshot yet
    open_problem(page)
    wait_until_python_ready(page)
    first = json.loads(page.get_attribute(".runtime-text", "data-boot") or "{}")
    assert first["restored"] is False
    page.wait_for_timeout(1000)  # the snapshot is written in the background
    open_problem(page)
    wait_until_python_ready(page)
    second = json.loads(page.get_attribute(".runtime-text", "data-boot") or "{}")
    assert second["restored"] is True
    replace_code(page, reference_source())
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")


def test_the_problem_list_starts_python_ahead_so_the_first_problem_restores_it(
    fresh_page: Any,
) -> None:
    """Issue 37: opening a problem waited on a cold Pyodide (6 s idle, 30 s under load).
    While the list is read, Python starts once in the background and leaves its snapshot:
    the first problem opened after it restores instead of starting cold."""
    page = fresh_page  # a first visit: no snapshot yet
    page.goto("/")
    page.wait_for_selector("body[data-python-warmup=ready]", timeout=BOOT_TIMEOUT_MS)
    open_problem(page)
    wait_until_python_ready(page)
    boot = json.loads(page.get_attribute(".runtime-text", "data-boot") or "{}")
    assert boot["restored"] is True, boot
    # Back on the list, nothing is started again: the snapshot is there.
    page.goto("/")
    page.wait_for_timeout(2500)
    assert page.get_attribute("body", "data-python-warmup") is None


def test_a_float_where_an_int_is_expected_is_wrong_and_shown_as_a_float(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    floats = reference_source() + (
        "\n_exact = kv_bytes_per_token\n\n"
        "def kv_bytes_per_token(config, kv_dtype):\n"
        "    return float(_exact(config, kv_dtype))\n"
    )
    replace_code(page, floats)
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=WA]")
    first = page.locator(".case").first
    assert first.locator(".value.got").inner_text().strip() == "114688.0"
    assert first.locator(".value.expected").inner_text().strip() == "114688"


def test_whole_floats_in_the_bundle_stay_floats_on_the_way_to_python(page: Any) -> None:
    """Pins a bug: the page parsed the bundle and re-serialised it for the worker, and
    JS numbers turned an expected 1792.0 into 1792, so roofline's own reference was
    judged WA ("expected an int, got a float") in the browser."""
    open_problem(page, "roofline")
    wait_until_python_ready(page)
    replace_code(page, reference_source("roofline"))
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")
