"""A Chinese reader's Run results: every case message is said in Chinese, from the key and
arguments the judge put in the report (judge/messages.py, built into the page)."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import RUN, open_problem, replace_code, shoot, wait_until_python_ready

pytestmark = pytest.mark.browser

WRONG_TYPE = "def kv_bytes_per_token(*args, **kwargs):\n    return [1]\n"


@pytest.mark.locale("zh-CN")
def test_a_chinese_page_says_the_judges_case_messages_in_chinese(page: Any) -> None:
    open_problem(page, "kv-bytes-per-token")
    wait_until_python_ready(page)
    replace_code(page, WRONG_TYPE)
    page.click(RUN)
    page.wait_for_selector(".report")
    messages = page.locator(".case .case-message").all_inner_texts()
    assert messages and all(m == "期望 int，实际是 list" for m in messages), messages
    shoot(page, "24-case-messages-in-chinese")
