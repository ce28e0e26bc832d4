"""The landing page in headless Chromium: what this is, where to start, the chapter's
sections; below it the problem list with difficulty, solved-by and acceptance columns and a
tier legend; a problem page links back to its section."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .pages import shoot

pytestmark = pytest.mark.browser


@pytest.mark.locale("en-US")
def test_the_landing_page_points_to_the_first_problem_and_lists_difficulty_and_solvers(
    page: Any,
) -> None:
    page.goto("/")
    landing = page.locator("#landing")
    assert "Practise the KV cache" in landing.locator("h1").inner_text()
    assert landing.locator(".chapter-sections li").count() == 6
    start = page.locator("#start-link")
    assert start.get_attribute("href") == "/problems/self-test"

    row = page.locator("tr[data-slug=prefix-cache]")
    assert row.locator("td.difficulty").inner_text() == "hard"
    assert re.fullmatch(r"\d+", row.locator("td.solved-count").inner_text())
    assert re.fullmatch(r"\d+%|–", row.locator("td.acceptance").inner_text())
    assert "torch problems need PyTorch" in page.locator(".tier-legend").inner_text()
    shoot(page, "landing-en")

    start.click()
    page.wait_for_url("**/problems/self-test")
    page.goto("/problems/prefix-cache")
    link = page.locator(".handbook-link a")
    assert link.inner_text() == "Managing KV-cache memory"
    link.click()
    page.wait_for_url("**/#section-memory")
    practised = page.locator("#section-memory .practise")
    assert practised.locator("a[href='/problems/prefix-cache']").count() == 1


@pytest.mark.locale("zh-CN")
def test_the_landing_page_speaks_chinese(page: Any) -> None:
    page.goto("/")
    assert page.locator("#landing h2").inner_text() == "本章各节"
    assert page.locator("#start-link").inner_text().startswith("自测")
    assert page.locator("tr[data-slug=roofline] td.difficulty").inner_text() == "简单"
    assert "浏览器题只用标准库" in page.locator(".tier-legend").inner_text()
