"""Try your own input in real Chromium: a public case's arguments edited as JSON, the
reference's answer from the server, and the learner's code run on it in the page's Python,
the two side by side; bad JSON is said at once, and the tab speaks the reader's language."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .pages import ROOT, register, replace_code, shoot, wait_until_python_ready

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SLUG = "block-table"
TAB = "button[data-tab=try]"
PANEL = "[data-panel=try]"
TRY = f"{PANEL} button[data-action=try]"
# Two sequences, one freed, then the other grows into the freed blocks.
OWN_TRACE = {
    "num_blocks": 3,
    "block_size": 2,
    "ops": [["append", 0, 3], ["append", 1, 2], ["free", 0], ["append", 1, 3]],
}


def _source(name: str) -> str:
    folder = ROOT / "problems" / SLUG
    path = folder / "reference.py" if name == "reference" else folder / "solutions" / "wrong" / name
    return path.read_text(encoding="utf-8")


def _open(page: Any) -> None:
    register(page, prefix="try")
    page.goto(f"/problems/{SLUG}")
    page.wait_for_selector(".workspace .cm-content")
    wait_until_python_ready(page)


def _try(page: Any, args: object) -> Any:
    page.fill(f"{PANEL} textarea.try-text", json.dumps(args))
    page.click(TRY)
    return page.wait_for_selector(f"{PANEL} .report[data-verdict]", timeout=60_000)


def test_your_code_and_the_reference_answer_your_own_input_side_by_side(page: Any) -> None:
    _open(page)
    replace_code(page, _source("off_by_one_blocks.py"))
    page.click(TAB)
    # It starts from the first public case's arguments, and each public case can be picked.
    start = json.loads(page.input_value(f"{PANEL} textarea.try-text"))
    assert set(start) == {"num_blocks", "block_size", "ops"}
    options = page.locator(f"{PANEL} select.try-from option").all_inner_texts()
    assert "free-order" in options
    page.select_option(f"{PANEL} select.try-from", label="free-order")
    assert any(
        op[0] == "free" for op in json.loads(page.input_value(f"{PANEL} textarea.try-text"))["ops"]
    )

    wrong = _try(page, OWN_TRACE)
    shoot(page, "30-try-input-wrong")
    assert wrong.get_attribute("data-verdict") == "WA"
    panel = page.inner_text(PANEL)
    assert "The reference's answer" in panel and "Your code" in panel
    reference = page.inner_text(f"{PANEL} .try-reference pre")
    assert reference.strip().startswith("[")
    # The card is a Run's card: the step that differs, got beside expected.
    card = page.inner_text(f"{PANEL} .report .case")
    assert "custom" in card and "Got" in card and "Expected" in card
    # Nothing was stored: a try is not an attempt.
    assert page.request.get(f"/api/submissions?problem={SLUG}").json()["submissions"] == []

    replace_code(page, _source("reference"))
    right = _try(page, OWN_TRACE)
    assert right.get_attribute("data-verdict") == "AC"
    assert "same as the reference's" in page.inner_text(PANEL)


def test_text_that_is_not_json_is_said_at_once_and_a_refused_shape_by_the_server(
    page: Any,
) -> None:
    _open(page)
    page.click(TAB)
    page.fill(f"{PANEL} textarea.try-text", '{"num_blocks": 3,')
    page.click(TRY)
    problem = page.wait_for_selector(f"{PANEL} .try-problem .notice-error")
    assert "This is not JSON" in problem.inner_text()
    page.fill(f"{PANEL} textarea.try-text", '{"num_blocks": 3}')
    assert page.locator(f"{PANEL} .try-problem .notice-error").count() == 0  # typing clears it
    page.click(TRY)
    refused = page.wait_for_selector(f"{PANEL} .try-out .notice-error", timeout=60_000)
    assert "not shaped like a public case" in refused.inner_text()


@pytest.mark.locale("zh-CN")
def test_the_tab_and_its_answers_are_in_chinese_for_a_chinese_reader(page: Any) -> None:
    _open(page)
    assert page.inner_text(TAB).strip() == "自定义输入"
    page.click(TAB)
    replace_code(page, _source("reference"))
    page.click(TAB)
    _try(page, OWN_TRACE)
    panel = page.inner_text(PANEL)
    assert "参考解的答案" in panel and "你的代码的答案与参考解相同" in panel


def test_a_visitor_is_asked_to_log_in_to_try_an_input(page: Any) -> None:
    page.goto(f"/problems/{SLUG}")
    page.wait_for_selector(".workspace .cm-content")
    page.click(TAB)
    link = page.locator(f"{PANEL} a", has_text="Log in to try your own input")
    assert link.count() == 1 and "/login" in (link.get_attribute("href") or "")
