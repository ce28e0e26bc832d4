"""Around the problems, in real headless Chromium: hints revealed one at a time (and still
revealed after a reload), an old submission restored into the editor, a diff of two
submissions (and of two too different to line up), and a draft that follows the learner to a fresh browser context."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import (
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
SHOWN_HINTS = "#hints details.hint:not([hidden])"


def code_lines(text: str) -> list[str]:
    # The editor renders an empty line as a line holding a newline; compare the rest.
    return [line for line in text.splitlines() if line.strip()]


def submit_code(page: Any, code: str) -> None:
    replace_code(page, code)
    page.click(SUBMIT)
    page.wait_for_selector(VERDICT)


def test_hints_open_one_at_a_time_and_stay_open_after_a_reload(page: Any) -> None:
    open_problem(page)
    assert page.locator("#hints details.hint").count() >= 2
    assert page.locator(SHOWN_HINTS).count() == 0, "no hint shows before it is asked for"
    button = page.locator("#hints button[data-action=next-hint]")
    assert button.inner_text().startswith("Show hint 1 of ")
    button.click()
    assert page.locator(SHOWN_HINTS).count() == 1
    assert page.locator(f"{SHOWN_HINTS}[open]").count() == 1
    assert button.inner_text().startswith("Show hint 2 of ")
    shoot(page, "40-hint-revealed")
    page.reload()
    page.wait_for_selector(".workspace .cm-content")
    assert page.locator(SHOWN_HINTS).count() == 1, "the revealed hint is remembered"
    assert page.locator("#editorial .editorial-locked").count() == 1


def test_an_accepted_submission_opens_the_editorial_and_restores_into_the_editor(
    page: Any,
) -> None:
    register(page)
    open_problem(page)
    reference = reference_source()
    submit_code(page, reference)
    assert page.get_attribute(VERDICT, "data-verdict") == "AC"
    replace_code(page, "# something else entirely\n")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".live button[data-action=restore]")
    assert code_lines(editor_text(page)) == code_lines(reference)
    shoot(page, "41-restored")
    page.reload()
    page.wait_for_selector("#editorial .markdown")
    assert page.locator("#editorial .editorial-locked").count() == 0


def test_restoring_a_submission_with_a_failing_case_puts_back_its_code_not_the_cases_test(
    page: Any,
) -> None:
    """Issue 23: Restore took the first `pre.code` of the submission's body, which for a
    failing public case is the case's Copy-as-a-test snippet, and the draft then saved it."""
    register(page)
    open_problem(page)
    wrong = reference_source() + (
        "\n_right = kv_bytes_per_token\n\n\n"
        "def kv_bytes_per_token(config: dict, kv_dtype: str) -> int:\n"
        "    return _right(config, kv_dtype) + 1\n"
    )
    submit_code(page, wrong)
    assert page.get_attribute(VERDICT, "data-verdict") == "WA"
    page.locator(".live details.submission").first.evaluate("(row) => { row.open = true; }")
    page.wait_for_selector(".live pre.case-test-code", state="attached")
    replace_code(page, "# something else entirely\n")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".live button[data-action=restore]")
    assert code_lines(editor_text(page)) == code_lines(wrong)


def test_two_submissions_are_compared_line_by_line(page: Any) -> None:
    register(page)
    open_problem(page)
    reference = reference_source()
    submit_code(page, reference)
    submit_code(page, reference + "\n# second try\n")
    page.reload()
    page.wait_for_selector(".workspace .cm-content")
    page.click("button[data-tab=submissions]")
    newest = page.locator("[data-panel=submissions] details.submission").first
    newest.locator("summary").click()
    picker = newest.locator("select[data-action=compare]")
    picker.wait_for()
    older = newest.evaluate(
        "row => [...row.parentElement.querySelectorAll('details.submission')][1].dataset.submission"
    )
    picker.select_option(older)
    view = newest.locator(".diff-view")
    view.locator("tr.diff-add").first.wait_for()
    assert "# second try" in view.locator("tr.diff-add").all_inner_texts()[-1]
    assert view.locator("tr.diff-del").count() == 0
    assert "lines added, 0 removed" in view.locator(".diff-title").inner_text()
    shoot(page, "42-diff")


def test_two_submissions_too_different_to_line_up_are_compared_with_a_note(page: Any) -> None:
    """The server's diff has a budget (issue 22): past it, the page says why the differing
    lines are shown removed, then added."""
    register(page)
    open_problem(page)
    token = page.request.get("/api/me").json()["csrf_token"]
    for code in ("a = 1\n" * 1500, "a = 1\nb = 2\n" * 750):
        sent = page.request.post(
            "/api/submissions",
            data={"problem": SLUG, "code": code},
            headers={"X-CSRF-Token": token},
        )
        assert sent.status == 202, sent.text()
    page.reload()
    page.wait_for_selector(".workspace .cm-content")
    page.click("button[data-tab=submissions]")
    newest = page.locator("[data-panel=submissions] details.submission").first
    newest.locator("summary").click()
    picker = newest.locator("select[data-action=compare]")
    picker.wait_for()
    older = newest.evaluate(
        "row => [...row.parentElement.querySelectorAll('details.submission')][1].dataset.submission"
    )
    picker.select_option(older)
    note = newest.locator(".diff-view .diff-note")
    note.wait_for()
    assert "too many places to line them up" in note.inner_text()
    assert newest.locator(".diff-view tr.diff-add").count() > 0


def test_a_draft_follows_the_learner_to_a_fresh_browser(page: Any, browser: Any) -> None:
    username = register(page)
    open_problem(page)
    draft = "# a draft written in the first browser\ndef kv_bytes_per_token(config, kv_dtype):\n    return 1\n"
    save_draft(page, draft)
    other, tab = log_in_elsewhere(browser, page, username)
    try:
        open_problem(tab)
        tab.wait_for_function(
            "() => document.querySelector('.cm-content').innerText.includes('first browser')"
        )
        assert code_lines(editor_text(tab)) == code_lines(draft)
        shoot(tab, "43-draft-in-a-fresh-browser")
    finally:
        other.close()
