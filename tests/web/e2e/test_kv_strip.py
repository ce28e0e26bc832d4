"""The landing page's "why K and V can be cached" strip in headless Chromium (issue 12,
section 2): stepping a sentence through a tiny causal attention, by mouse and keyboard,
marks which K/V are new and which come from the cache, greys the masked future, says
what happens in a live caption, and counts the work with and without a cache, in English
and in Chinese; on a dark phone it fits and stays readable. The step model itself is
pinned by web/frontend/test/kv_steps.test.mjs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LiveServer
from .pages import ARTIFACTS, shoot
from .test_fit_and_finish import COLOURS, PHONE, contrast, luminance, new_page

pytestmark = pytest.mark.browser

STRIP = "#kv-strip"
NEXT = f"{STRIP} button[data-action=kv-next]"
PREV = f"{STRIP} button[data-action=kv-prev]"
NO_CACHE = f"{STRIP} input[data-action=kv-no-cache]"


def marks(page: Any, row: str = "k") -> list[str]:
    """The K (or V) row's marks, one per position, as the page writes them."""
    cells = page.locator(f"{STRIP} tr.kv-row-{row} td")
    return [cells.nth(i).get_attribute("data-kv") for i in range(cells.count())]


def words(page: Any) -> list[str]:
    """What each K cell says about itself, so a mark is never colour alone."""
    return [
        str(text) for text in page.locator(f"{STRIP} tr.kv-row-k td .kv-mark").all_inner_texts()
    ]


def at_step(page: Any, index: int) -> None:
    page.wait_for_selector(f"{STRIP}[data-step='{index}']")


def shoot_strip(page: Any, name: str) -> None:
    """The strip alone, next to the full-page shot, for people to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(STRIP).screenshot(path=str(ARTIFACTS / f"{name}.png"))


def caption(page: Any) -> str:
    return str(page.locator(f"{STRIP} .kv-caption").inner_text())


@pytest.mark.locale("en-US")
def test_stepping_marks_new_and_cached_kv_and_says_why_the_cache_is_exact(page: Any) -> None:
    page.goto("/")
    at_step(page, 0)
    assert page.locator(f"{STRIP} h2").inner_text() == "Why K and V can be cached"
    assert page.locator(f"{STRIP} .kv-caption").get_attribute("aria-live") == "polite"
    assert page.locator(f"{STRIP} .kv-status").inner_text() == "Step 1 of 4: prefill"
    assert marks(page) == ["new"] * 3 + ["future"] * 3
    assert marks(page, "v") == marks(page)
    assert words(page) == ["new"] * 3 + ["masked"] * 3
    assert caption(page).startswith("Prefill: the 3 prompt tokens go through together")
    # The prefill's three queries see 1, 2 and 3 positions: the causal mask's triangle.
    rows = page.locator(f"{STRIP} tr.kv-row-attention")
    assert rows.count() == 3
    assert [rows.nth(i).locator("td[data-mask=future]").count() for i in range(3)] == [5, 4, 3]
    assert page.locator(PREV).is_disabled()

    page.click(NEXT)
    at_step(page, 1)
    assert marks(page) == ["reused"] * 3 + ["new"] + ["future"] * 2
    assert words(page)[:4] == ["cached", "cached", "cached", "new"]
    assert page.locator(f"{STRIP} tr.kv-row-attention").count() == 1, "one new query a decode step"
    text = caption(page)
    assert text.startswith("Decode: only “on” is new")
    assert (
        "under the causal mask a token’s K and V depend only on it and the tokens before it" in text
    )
    assert "4 with the cache, 7 without" in page.locator(f"{STRIP} .kv-work").inner_text()
    shoot(page, "kv-strip-en")
    shoot_strip(page, "kv-strip-en-strip")

    # The keyboard: Enter on the focused button, then the arrow keys from inside the strip.
    page.focus(NEXT)
    page.keyboard.press("Enter")
    at_step(page, 2)
    page.keyboard.press("ArrowRight")
    at_step(page, 3)
    assert page.locator(NEXT).is_disabled()
    # The disabled button would have dropped the focus; it moved to Previous instead.
    assert page.evaluate("document.activeElement.dataset.action") == "kv-prev"
    assert marks(page) == ["reused"] * 5 + ["new"]
    assert "6 with the cache, 18 without" in page.locator(f"{STRIP} .kv-work").inner_text()

    page.check(NO_CACHE)
    page.wait_for_selector(f"{STRIP} td[data-kv=recomputed]")
    assert marks(page) == ["recomputed"] * 5 + ["new"]
    assert caption(page).startswith("Without a cache: all 6 tokens go through again")
    assert (
        "1,000 with the cache, 500,500 without"
        in page.locator(f"{STRIP} .kv-work-far").inner_text()
    )

    page.click(PREV)
    at_step(page, 2)
    assert marks(page) == ["recomputed"] * 4 + ["new", "future"]
    assert "5 with the cache, 12 without" in page.locator(f"{STRIP} .kv-work").inner_text()


@pytest.mark.locale("zh-CN")
def test_the_strip_speaks_chinese(page: Any) -> None:
    page.goto("/")
    at_step(page, 0)
    assert page.locator(f"{STRIP} h2").inner_text() == "为什么 K、V 可以缓存"
    assert page.locator(f"{STRIP} .kv-status").inner_text() == "第 1 步，共 4 步：prefill"
    assert words(page) == ["新算"] * 3 + ["屏蔽"] * 3
    assert page.locator(f"{STRIP} thead th").nth(1).inner_text() == "小猫"
    page.click(NEXT)
    at_step(page, 1)
    assert words(page)[:4] == ["缓存", "缓存", "缓存", "新算"]
    text = caption(page)
    assert text.startswith("Decode：只有“坐”是新的")
    assert "因果掩码下，一个 token 的 K、V 只依赖它自己和之前的 token" in text
    page.check(NO_CACHE)
    page.wait_for_selector(f"{STRIP} td[data-kv=recomputed]")
    assert caption(page).startswith("不用缓存：4 个 token 全部重新计算")
    assert "用缓存 4 个，不用缓存 7 个" in page.locator(f"{STRIP} .kv-work").inner_text()
    shoot(page, "kv-strip-zh")
    shoot_strip(page, "kv-strip-zh-strip")


@pytest.fixture()
def dark_phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from new_page(
        browser, live_server, viewport=PHONE, is_mobile=True, has_touch=True, color_scheme="dark"
    )


def test_on_a_dark_phone_the_strip_fits_and_its_marks_are_readable(dark_phone: Any) -> None:
    page = dark_phone
    page.goto("/")
    at_step(page, 0)
    page.click(NEXT)
    at_step(page, 1)
    box = page.locator(STRIP).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    sideways = page.evaluate("document.scrollingElement.scrollWidth")
    assert sideways <= PHONE["width"], "the strip does not make the page scroll sideways"
    grid = page.evaluate(
        "(() => { const box = document.querySelector('#kv-strip .kv-scroll');"
        " return [box.scrollWidth, box.clientWidth]; })()"
    )
    assert grid[0] <= grid[1], f"the table fits without scrolling its own box: {grid}"
    strip = page.evaluate(COLOURS, STRIP)
    assert luminance(strip["background"]) < 0.05, strip
    for selector in (
        f"{STRIP} .kv-caption",
        f"{STRIP} td.kv-reused .kv-mark",
        f"{STRIP} td.kv-new .kv-mark",
    ):
        pair = page.evaluate(COLOURS, selector)
        assert contrast(pair["color"], pair["background"]) >= 4.5, (selector, pair)
    shoot(page, "kv-strip-dark-phone")
    shoot_strip(page, "kv-strip-dark-phone-strip")
