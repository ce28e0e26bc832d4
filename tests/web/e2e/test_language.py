"""The UI speaks Chinese or English: the browser's language by default, the switch after."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import open_problem, shoot, wait_until_python_ready

pytestmark = pytest.mark.browser


@pytest.mark.locale("zh-CN")
def test_a_chinese_browser_gets_chinese_and_the_switch_changes_everything(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    assert page.inner_text("button[data-action=run]") == "运行"
    assert "每个 token" in page.inner_text(".statement h1")
    shoot(page, "09-chinese")

    page.click("#lang-switch")
    page.wait_for_selector(".workspace .cm-content")
    assert page.inner_text("button[data-action=run]") == "Run"
    assert "KV cache bytes per token" in page.inner_text(".statement h1")

    page.reload()  # the choice is remembered (a cookie the server reads too)
    page.wait_for_selector(".workspace .cm-content")
    assert page.inner_text("button[data-action=run]") == "Run"
    shoot(page, "10-switched-to-english")


@pytest.mark.locale("en-GB")
def test_an_english_browser_gets_english(page: Any) -> None:
    open_problem(page)
    assert page.inner_text("button[data-action=reset]") == "Reset"
    assert page.get_attribute("html", "lang") == "en"
