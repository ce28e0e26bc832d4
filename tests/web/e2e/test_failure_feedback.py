"""Feedback a learner can act on, in real Chromium (issue 12, section 1): a failing case's
input and "copy as a test", messages that wrap instead of being cut, what each case
printed, and a refused repeat submission."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .pages import (
    ARTIFACTS,
    ROOT,
    RUN,
    SUBMIT,
    open_problem,
    reference_source,
    register,
    replace_code,
    shoot,
    wait_until_python_ready,
)

pytestmark = pytest.mark.browser

BLOCK_TABLE = ROOT / "problems" / "block-table"
FREES_FIRST_BLOCK_FIRST = (BLOCK_TABLE / "solutions/wrong/free_first_block_first.py").read_text()
LONG_MESSAGE = " ".join(f"word{i}" for i in range(80)) + " (expected 1)"


def shoot_card(card: Any, name: str) -> None:
    """The case's card alone, in a window tall enough for the results panel to hold it
    (the panel scrolls, and a page screenshot would cut the card)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    card.page.set_viewport_size({"width": 1440, "height": 2400})
    card.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def run_code(page: Any, slug: str, source: str) -> Any:
    open_problem(page, slug)
    wait_until_python_ready(page)
    replace_code(page, source)
    page.click(RUN)
    return page.wait_for_selector(".report")


def test_a_failing_trace_shows_its_calls_and_state_and_copies_as_a_test_that_reproduces_it(
    page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    run_code(page, "block-table", FREES_FIRST_BLOCK_FIRST)
    card = page.locator(".case[data-case=free-order]")
    assert card.evaluate("element => element.open"), "the first failing case starts open"
    calls = card.locator(".input-ops li")
    assert calls.all_inner_texts() == [
        "append(seq_id=1, n=5)",
        "append(seq_id=2, n=2)",
        "free(seq_id=1)",
    ]
    assert "step-bad" in (calls.nth(2).get_attribute("class") or "")
    args = card.locator(".input-args").inner_text()
    assert '"num_blocks": 6' in args and '"ops": [["append",1,5],["append",2,2],["free",1]]' in args
    assert '"free_blocks": [4,5]' in card.locator(".state-before").inner_text()
    shoot_card(card, "20-block-table-failure-input")

    card.locator("button[data-action=copy-test]").click()
    page.wait_for_selector(".case[data-case=free-order] button[data-copied=true]")
    test = page.evaluate("navigator.clipboard.readText()")
    assert test.startswith('"""Case "free-order" of block-table')
    # The copied test fails where the judge said, and passes on a right solution.
    for name, solution, code in (
        ("wrong", FREES_FIRST_BLOCK_FIRST, 1),
        ("right", reference_source("block-table"), 0),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "block_table.py").write_text(solution)
        (folder / "test_free_order.py").write_text(test)
        done = subprocess.run(
            [sys.executable, "test_free_order.py"], cwd=folder, capture_output=True, text=True
        )
        assert done.returncode == code, done.stderr
        if code:
            assert "step 2 (free(seq_id=1))" in done.stderr


def test_a_long_message_wraps_inside_its_card_and_keeps_its_end(page: Any) -> None:
    source = f"def kv_bytes_per_token(config, kv_dtype):\n    raise ValueError({LONG_MESSAGE!r})\n"
    run_code(page, "kv-bytes-per-token", source)
    first = page.locator(".case").first
    message = first.locator(".case-message")
    assert message.inner_text().endswith("(expected 1)")
    # Nothing clipped: the message's box holds all its text, the card holds the message.
    assert message.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert first.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert message.evaluate("e => getComputedStyle(e).textOverflow") != "ellipsis"
    shoot_card(first, "21-long-message-wraps")


def test_each_case_shows_what_it_printed(page: Any) -> None:
    source = reference_source() + (
        "\n_reference = kv_bytes_per_token\n\n\n"
        "def kv_bytes_per_token(config, kv_dtype):\n"
        "    print('LAYERS', config['num_hidden_layers'], kv_dtype)\n"
        "    return _reference(config, kv_dtype)\n"
    )
    run_code(page, "kv-bytes-per-token", source)
    page.wait_for_selector(".report[data-verdict=AC]")
    cards = page.locator(".case")
    for i in (0, 1):
        card = cards.nth(i)
        card.locator("summary").click()
        printed = card.locator(".case-stdout").inner_text()
        assert printed.startswith("LAYERS ") and printed.count("LAYERS") == 1
    assert (
        cards.nth(0).locator(".case-stdout").inner_text()
        != cards.nth(1).locator(".case-stdout").inner_text()
    )
    everything = page.locator(".output-all")
    assert not everything.evaluate("e => e.open"), "the whole output waits behind one click"
    assert everything.evaluate("e => e.textContent").count("LAYERS") == cards.count()
    shoot(page, "22-output-per-case")


def _submit_twice(page: Any) -> Any:
    register(page, "repeater")
    open_problem(page)
    replace_code(page, reference_source())
    page.click(SUBMIT)
    page.wait_for_selector(".live .submission[data-verdict]:not([data-verdict=''])")
    page.click(SUBMIT)
    return page.wait_for_selector(".live .notice-error[data-code=duplicate_submission]")


def test_submitting_the_same_code_again_is_refused_with_a_message(page: Any) -> None:
    refused = _submit_twice(page)
    text = refused.inner_text()
    assert "same as your submission #" in text and "already judged (AC)" in text
    assert "{" not in text, "the message, not the error object as JSON"
    shoot(page, "23-repeat-refused")


@pytest.mark.locale("zh-CN")
def test_a_refused_repeat_is_said_in_chinese(page: Any) -> None:
    text = _submit_twice(page).inner_text()
    assert "提交失败" in text and "完全相同" in text and "请修改代码后再提交" in text
