"""Right after a submission, in real headless Chromium (issue 23, section 4): the first
submission of a page load is not listed above "no submissions yet", an accepted one opens
the editorial without a reload, and a draft from another device that replaces the editor
says so, with an Undo."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import (
    ROOT,
    SLUG,
    SUBMIT,
    editor_text,
    log_in_elsewhere,
    open_problem,
    reference_source,
    register,
    replace_code,
    save_draft,
    shoot,
)

pytestmark = pytest.mark.browser
VERDICT = ".live .submission[data-verdict]:not([data-verdict=''])"
HISTORY = "[data-panel=submissions]"


def code_lines(text: str) -> list[str]:
    # The editor renders an empty line as a line holding a newline; compare the rest.
    return [line for line in text.splitlines() if line.strip()]


def test_the_first_submission_of_a_page_load_is_not_shown_above_no_submissions_yet(
    page: Any,
) -> None:
    register(page)
    open_problem(page)
    page.click("button[data-tab=submissions]")
    page.locator(HISTORY, has_text="No submissions yet.").wait_for()
    replace_code(page, "def kv_bytes_per_token(config, kv_dtype):\n    return 1\n")
    page.click(SUBMIT)
    page.wait_for_selector(VERDICT)
    panel = page.locator(HISTORY)
    assert "No submissions yet." not in panel.inner_text()
    assert panel.locator("details.submission").count() == 1
    shoot(page, "44-first-submission")


def test_an_accepted_submission_opens_the_editorial_without_a_reload(page: Any) -> None:
    register(page)
    open_problem(page)
    assert page.locator("#editorial .editorial-locked").count() == 1
    replace_code(page, reference_source())
    page.click(SUBMIT)
    page.wait_for_selector(VERDICT)
    assert page.get_attribute(VERDICT, "data-verdict") == "AC"
    page.wait_for_selector("#editorial .markdown")
    assert page.locator("#editorial .editorial-locked").count() == 0
    editorial = (ROOT / "problems" / SLUG / "editorial.en.md").read_text(encoding="utf-8")
    assert "Common mistake." in editorial
    shown = page.locator("#editorial .markdown")
    assert "Common mistake." in shown.inner_text()
    assert shown.locator(".katex").count() > 0, "its math is typeset"
    assert "the editorial is open now" in page.locator(".live").inner_text()


def test_a_draft_from_another_device_says_when_it_was_saved_and_can_be_undone(
    page: Any, browser: Any
) -> None:
    username = register(page)
    open_problem(page)
    draft = "# a draft written in the first browser\ndef kv_bytes_per_token(config, kv_dtype):\n    return 1\n"
    save_draft(page, draft)
    other, tab = log_in_elsewhere(browser, page, username)
    try:
        open_problem(tab)
        loaded = tab.locator(".draft-loaded")
        loaded.wait_for()
        assert loaded.inner_text().startswith("Loaded your draft from ")
        assert loaded.locator("time[datetime]").count() == 1
        tab.wait_for_function(
            "() => document.querySelector('.cm-content').innerText.includes('first browser')"
        )
        assert code_lines(editor_text(tab)) == code_lines(draft)
        shoot(tab, "45-draft-loaded")
        tab.click("button[data-action=undo-draft]")
        tab.wait_for_function(
            "() => !document.querySelector('.cm-content').innerText.includes('first browser')"
        )
        # A fresh browser had only the starter in its editor: Undo puts it back.
        starter = (ROOT / "problems" / SLUG / "starter.py").read_text(encoding="utf-8")
        assert code_lines(editor_text(tab)) == code_lines(starter)
        assert tab.locator(".draft-loaded").count() == 0
    finally:
        other.close()
