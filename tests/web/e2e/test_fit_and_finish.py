"""Fit and finish in headless Chromium: wide statement content scrolls inside itself at
1366 px, the speed board fits the statement pane at 1366 px and on a phone, a phone
(390x844, light and dark) gets a list that fits, a header that wraps with every entry in
view, tables that scroll in their own box, statement/code tabs and results below the
editor at their full height, the Chinese
list's headers, difficulties and tiers stay on one line at 1366 px, the dark scheme
darkens the site, the editor and the case pictures, the browser's time limit is the
problem's own and names the slow case, a compile error has one headline, the old results
grey out while a Run is on its way, dates read the same on every page, and the Run and
Submit shortcuts work from anywhere on the page."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_leaderboard import judged

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
    wait_for_fonts,
    wait_until_python_ready,
)

pytestmark = pytest.mark.browser

DOCS_IMG = Path(__file__).resolve().parents[3] / "docs" / "img"

LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
# The statements whose formula or example table was cut off at 1366 px.
WIDE_STATEMENTS = ["kv-bytes-per-token", "block-table", "fork-cow", "prefix-cache", "scheduler"]


def new_page(browser: Any, live_server: LiveServer, **options: Any) -> Iterator[Any]:
    """A fresh context like the `page` fixture's, with this test's viewport or scheme."""
    locale = options.pop("locale", "en-US")
    context = browser.new_context(
        locale=locale,
        base_url=live_server.url,
        extra_http_headers={"Accept-Language": locale},
        **options,
    )
    context.set_default_timeout(20_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture()
def laptop(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from new_page(browser, live_server, viewport=LAPTOP)


@pytest.fixture()
def phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from new_page(browser, live_server, viewport=PHONE, is_mobile=True, has_touch=True)


@pytest.fixture()
def dark(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from new_page(browser, live_server, viewport=LAPTOP, color_scheme="dark")


# Every element of the statement that reaches past the column's content box, unless it
# sits inside a box of the statement that scrolls sideways on its own (and that box fits).
OVERFLOWING = """() => {
  const pane = document.querySelector('.statement-pane');
  const style = getComputedStyle(pane);
  const box = pane.getBoundingClientRect();
  const right = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const out = [];
  for (const el of pane.querySelectorAll('.markdown *')) {
    let inner = false;
    for (let up = el.parentElement; up && up !== pane; up = up.parentElement) {
      if (scrolls(up)) { inner = true; break; }
    }
    const r = el.getBoundingClientRect();
    if (!inner && r.width > 0 && r.right > right + 0.5) out.push(`${el.tagName}.${el.className}`);
  }
  return {out, paneScrolls: pane.scrollWidth > pane.clientWidth};
}"""

# The statement's boxes wider than they are shown, and whether each one scrolls.
WIDE_BOXES = """() => [...document.querySelectorAll('.statement-pane .markdown *')]
  .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
  .filter((el) => ['TABLE', 'DIV', 'SPAN', 'PRE'].includes(el.tagName))
  .filter((el) => !el.closest('.katex') || el.matches('.katex-display'))
  .map((el) => {
    const before = el.scrollLeft;
    el.scrollLeft = 40;
    const moved = el.scrollLeft > before;
    el.scrollLeft = before;
    return {tag: el.tagName, cls: el.className, overflowX: getComputedStyle(el).overflowX, moved};
  })"""


@pytest.mark.parametrize("slug", WIDE_STATEMENTS)
def test_wide_formulas_and_tables_scroll_inside_the_statement_column_at_1366(
    laptop: Any, slug: str
) -> None:
    open_problem(laptop, slug)
    laptop.wait_for_selector(".statement-pane .katex, .statement-pane table")
    wait_for_fonts(laptop)
    found = laptop.evaluate(OVERFLOWING)
    assert found["out"] == [], f"{slug}: reaches past its column: {found['out'][:5]}"
    assert not found["paneScrolls"], f"{slug}: the whole statement scrolls sideways"
    wide = laptop.evaluate(WIDE_BOXES)
    assert wide, (
        f"{slug}: the formula or table that was cut off should still be wider than the column"
    )
    for item in wide:
        assert item["overflowX"] in ("auto", "scroll") and item["moved"], f"{slug}: {item}"


def test_the_problem_list_fits_a_phone_without_sideways_scrolling(phone: Any) -> None:
    phone.goto("/")
    widths = phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide on a {widths[1]} px screen"
    row = phone.locator("tr[data-slug=block-table]")
    assert row.locator("a").is_visible() and row.locator("td.difficulty").is_visible()


# A CPU as /proc/cpuinfo names it: the longest hardware text a board shows.
LONG_HARDWARE = "AMD EPYC 9654 96-Core Processor · 1 thread · torch 2.13.0"

# The speed board against the statement pane's content box, and its hardware column
# against the board's own visible box (a board that scrolls inside itself still has to
# show that column without scrolling).
SPEED_BOARD_FIT = """() => {
  const board = document.querySelector('#speed-board');
  const pane = board.closest('.statement-pane');
  const style = getComputedStyle(pane);
  const box = pane.getBoundingClientRect();
  const right = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
  let shown = board.getBoundingClientRect().right;
  for (let up = board; up && up !== pane; up = up.parentElement) {
    if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(up).overflowX)) {
      shown = Math.min(shown, up.getBoundingClientRect().right);
    }
  }
  const edges = [...board.querySelectorAll('th:last-child, td:last-child')]
    .map((el) => el.getBoundingClientRect().right);
  return {board: board.getBoundingClientRect().right, right, shown, edges,
          paneScrolls: pane.scrollWidth > pane.clientWidth};
}"""


def put_on_the_speed_board(page: Any, live_server: LiveServer) -> str:
    """A learner with an accepted decode-throughput run measured on LONG_HARDWARE."""
    username = register(page, prefix="fits")
    judged(
        live_server.app,
        username,
        "AC",
        1,
        slug="decode-throughput",
        metric=1834.2,
        q1=1801.5,
        q3=1855.9,
        spread=54.4,
        hardware=LONG_HARDWARE,
    )
    return username


@pytest.mark.parametrize("screen", ["laptop", "phone"])
def test_the_speed_board_fits_the_statement_pane_with_its_hardware_column_in_view(
    request: pytest.FixtureRequest, live_server: LiveServer, screen: str
) -> None:
    """The board's six columns reached past the statement pane (about 500 px wide at
    1366 px), so the hardware column was cut off at the pane's edge."""
    tab = request.getfixturevalue(screen)
    username = put_on_the_speed_board(tab, live_server)
    tab.goto("/problems/decode-throughput")
    tab.wait_for_selector(".workspace .statement-pane #speed-board")
    wait_for_fonts(tab)
    row = tab.locator(f"#speed-board tr[data-user='{username}']")
    assert row.locator("td").last.inner_text() == LONG_HARDWARE
    fit = tab.evaluate(SPEED_BOARD_FIT)
    assert fit["board"] <= fit["right"] + 0.5, f"the board reaches past its pane: {fit}"
    assert not fit["paneScrolls"], fit
    assert max(fit["edges"]) <= fit["shown"] + 0.5, f"the hardware column is cut off: {fit}"
    row.scroll_into_view_if_needed()
    assert tab.locator("#speed-board th").last.is_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.locator(".speed-board").screenshot(path=str(ARTIFACTS / f"32-speed-board-{screen}.png"))


# The lines each header of the problem list takes, and each difficulty and tier cell.
LINE_COUNTS = """() => [...document.querySelectorAll(
    'table.problem-list th, table.problem-list td.difficulty, table.problem-list td.tier')]
  .filter((cell) => cell.offsetWidth > 0 && cell.textContent.trim())
  .map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return [cell.textContent.trim(), tops.size];
  })"""


@pytest.mark.locale("zh-CN")
@pytest.mark.parametrize("logged_in", [False, True])
def test_the_chinese_problem_list_keeps_headers_difficulty_and_tier_on_one_line_at_1366(
    page: Any, logged_in: bool
) -> None:
    """简单 and 浏览器, under 难度 and 类型, wrapped one character per line at 1366 px:
    the tags column took the width."""
    page.set_viewport_size(LAPTOP)
    if logged_in:
        register(page, prefix="biaotou")  # one more column: 进度
    page.goto("/")
    counts = page.evaluate(LINE_COUNTS)
    assert {"难度", "类型", "简单", "浏览器", "torch"} <= {text for text, _ in counts}, counts
    assert [text for text, lines in counts if lines != 1] == [], counts
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    shoot(page, f"33-zh-list-{'in' if logged_in else 'out'}")


def header_lines(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """() => {
          const header = document.querySelector('body > header');
          const tops = [...header.children].filter((el) => el.offsetWidth > 0)
            .map((el) => Math.round(el.getBoundingClientRect().top + el.offsetHeight / 2));
          return {centres: [...new Set(tops)], height: header.offsetHeight,
                  page: document.documentElement.scrollWidth, screen: window.innerWidth};
        }"""
    )
    return found


@pytest.fixture()
def dark_phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from new_page(
        browser,
        live_server,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        color_scheme="dark",
        locale="zh-CN",
    )


# Each of the header's entries: whether all of it lies on the screen.
HEADER_ENTRIES = """() => {
  const header = document.querySelector('body > header');
  return [...header.children].filter((el) => el.offsetWidth > 0 && !el.matches('.spacer'))
    .map((el) => {
      const r = el.getBoundingClientRect();
      return {text: el.innerText.trim(), id: el.id, left: r.left, right: r.right,
              inView: r.left >= 0 && r.right <= window.innerWidth && r.top >= 0};
    });
}"""


@pytest.mark.parametrize("screen", ["phone", "dark_phone"])
def test_the_header_wraps_on_a_phone_with_every_entry_in_view(
    screen: str, request: pytest.FixtureRequest
) -> None:
    """Issue 37: at 390 px the header scrolled sideways and hid the language switch, the
    user name and Log out. It wraps now: every entry on the screen, the page no wider."""
    page = request.getfixturevalue(screen)
    page.goto("/")
    for logged_in in (False, True):
        if logged_in:
            username = register(page, prefix="phone")
        entries = page.evaluate(HEADER_ENTRIES)
        hidden = [e for e in entries if not e["inView"]]
        assert hidden == [], f"header entries past the screen: {hidden}"
        assert any(e["id"] == "lang-switch" for e in entries), entries
        if logged_in:
            names = [e["text"] for e in entries]
            assert username in names and any(n in ("Log out", "退出登录", "退出") for n in names), (
                names
            )
        overflow = page.evaluate(
            "() => getComputedStyle(document.querySelector('body > header')).overflowX"
        )
        assert overflow == "visible"
        widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
    shoot(page, f"34-{screen}-header")


@pytest.mark.parametrize("path", ["/submissions", "/leaderboard", "/leaderboard/block-table"])
def test_tables_scroll_inside_their_own_box_on_a_phone(dark_phone: Any, path: str) -> None:
    """The submissions list and the boards made the page 429-566 px wide on a 390 px phone."""
    register(dark_phone, prefix="tables")
    dark_phone.goto(path)
    found = dark_phone.evaluate(
        """() => [...document.querySelectorAll('main table')].map((t) => ({
             id: t.id || t.className, wide: t.scrollWidth > t.clientWidth + 1,
             overflowX: getComputedStyle(t).overflowX,
             fits: t.getBoundingClientRect().right <= window.innerWidth + 0.5}))"""
    )
    assert found, f"{path} has no table"
    for table in found:
        assert table["fits"], table
        if table["wide"]:
            assert table["overflowX"] in ("auto", "scroll"), table
    widths = dark_phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], (path, widths)


def test_run_results_sit_below_the_editor_at_their_full_height_on_a_phone(phone: Any) -> None:
    """Run's results were a small pane scrolling inside the code tab; on a phone they follow
    the editor, as tall as they are, and the page scrolls to them."""
    phone.goto("/problems/block-table")
    phone.wait_for_selector(".workspace .pane-tabs")
    phone.locator(".pane-tabs .tab").nth(1).click()
    wait_until_python_ready(phone)
    phone.click(RUN)  # the starter: every case fails, a long report
    phone.wait_for_selector(".report[data-verdict]")
    found = phone.evaluate(
        """() => {
          const editor = document.querySelector('.editor').getBoundingClientRect();
          const panel = [...document.querySelectorAll('.code-pane .panel')]
            .find((p) => !p.hidden && p.querySelector('.report'));
          const box = panel.getBoundingClientRect();
          return {editorBottom: editor.bottom + window.scrollY, editorHeight: editor.height,
                  panelTop: box.top + window.scrollY, scrolls: panel.scrollHeight > panel.clientHeight + 1,
                  overflowY: getComputedStyle(panel).overflowY,
                  page: document.documentElement.scrollHeight, screen: window.innerHeight};
        }"""
    )
    assert found["panelTop"] >= found["editorBottom"] - 1, found
    assert not found["scrolls"] and found["overflowY"] == "visible", found
    assert found["editorHeight"] >= 0.5 * PHONE["height"], found
    assert found["page"] > found["screen"], "a long report is read by scrolling the page"
    shoot(phone, "35-phone-results-below-editor")


def test_statement_and_code_are_tabs_on_a_phone_and_run_is_in_view(phone: Any) -> None:
    phone.goto("/problems/block-table")
    phone.wait_for_selector(".workspace .pane-tabs")
    tabs = phone.locator(".pane-tabs .tab")
    assert tabs.all_inner_texts() == ["Statement", "Code"]
    assert phone.locator(".statement-pane").is_visible()
    assert not phone.locator(".code-pane").is_visible()
    tabs.nth(1).click()
    assert not phone.locator(".statement-pane").is_visible()
    wait_until_python_ready(phone)
    run = phone.locator(RUN).bounding_box()
    assert phone.evaluate("() => window.scrollY") == 0
    assert run is not None and run["y"] >= 0 and run["y"] + run["height"] <= PHONE["height"]
    widths = phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]
    phone.click(RUN)
    phone.wait_for_selector(".report[data-verdict]")
    shoot(phone, "30-phone-code-tab")
    if os.environ.get("PJ_DOCS_SCREENSHOTS") == "1":  # docs/FRONTEND.md's picture
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(DOCS_IMG / "mobile-problem.png"))
    tabs.nth(0).click()
    assert phone.locator(".statement-pane").is_visible()


def channels(colour: str) -> list[float]:
    return [float(x) for x in re.findall(r"[\d.]+", colour)[:3]]


def luminance(colour: str) -> float:
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in channels(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


COLOURS = """(selector) => {
  const el = document.querySelector(selector);
  const style = getComputedStyle(el);
  let back = el;
  while (back && getComputedStyle(back).backgroundColor === 'rgba(0, 0, 0, 0)') back = back.parentElement;
  return {color: style.color, background: getComputedStyle(back || document.body).backgroundColor};
}"""


def test_the_dark_scheme_darkens_the_site_and_the_editor_with_readable_text(dark: Any) -> None:
    dark.goto("/")
    body = dark.evaluate(COLOURS, "body")
    assert luminance(body["background"]) < 0.05, body
    assert contrast(body["color"], body["background"]) >= 7, body
    for selector in (
        "tr[data-slug=block-table] a",
        "tr[data-slug=block-table] td.difficulty",
        "th",
    ):
        pair = dark.evaluate(COLOURS, selector)
        assert contrast(pair["color"], pair["background"]) >= 4.5, (selector, pair)

    open_problem(dark, "block-table")
    for selector in (".statement-pane p", ".cm-content", ".cm-gutters", ".fineprint"):
        pair = dark.evaluate(COLOURS, selector)
        assert luminance(pair["background"]) < 0.05, (selector, pair)
        assert contrast(pair["color"], pair["background"]) >= 4.5, (selector, pair)
    keyword = dark.locator(".cm-content span", has_text=re.compile(r"^(def|class)$")).first
    colour = keyword.evaluate("el => getComputedStyle(el).color")
    editor = dark.evaluate(COLOURS, ".cm-content")["background"]
    assert contrast(colour, editor) >= 4.5, "syntax colours are readable on the dark editor"
    shoot(dark, "31-dark-problem")


# A picture's background, and each text's fill and each cell's fill, as computed.
PICTURE_COLOURS = """(svg) => ({
  background: getComputedStyle(svg).backgroundColor,
  texts: [...svg.querySelectorAll('text:not(.pic-mark)')].map((t) => getComputedStyle(t).fill),
  cells: [...svg.querySelectorAll('.pool-cell rect')].map((r) => getComputedStyle(r).fill),
})"""


def test_the_dark_scheme_draws_the_case_pictures_on_a_dark_background(dark: Any) -> None:
    """The pictures drew their own white background in the dark scheme: glaring boxes."""
    wrong = ROOT / "problems/block-table/solutions/wrong/free_first_block_first.py"
    open_problem(dark, "block-table")
    wait_until_python_ready(dark)
    replace_code(dark, wrong.read_text(encoding="utf-8"))
    dark.click(RUN)
    svg = dark.locator(".case[data-case=free-order] .pool-picture svg.picture-svg").first
    svg.wait_for()
    found = svg.evaluate(PICTURE_COLOURS)
    assert luminance(found["background"]) < 0.05, found["background"]
    for colour in found["texts"]:
        assert contrast(colour, found["background"]) >= 4.5, (colour, found["background"])
    assert all(luminance(fill) < 0.1 for fill in found["cells"]), found["cells"]
    svg.screenshot(path=str(ARTIFACTS / "34-dark-pool-picture.png"))


# Passes the first two cases, then never returns on the third.
STALLS_ON_THIRD = (
    "calls = []\n"
    "def kv_bytes_per_token(config, kv_dtype):\n"
    "    calls.append(1)\n"
    "    while len(calls) == 3:\n"
    "        pass\n"
    "    heads = config.get('num_key_value_heads', config['num_attention_heads'])\n"
    "    dim = config.get('head_dim') or config['hidden_size'] // config['num_attention_heads']\n"
    "    size = {'float32': 4, 'bfloat16': 2, 'float16': 2, 'fp8': 1}[kv_dtype]\n"
    "    return 2 * config['num_hidden_layers'] * heads * dim * size\n"
)


def test_a_case_past_its_own_limit_is_stopped_and_named_tle(laptop: Any) -> None:
    """kv-bytes-per-token allows 1 s per case: the browser stops the third case at 3 s
    (3x for Pyodide) and names it, where it used to wait 10 s and name nothing."""
    open_problem(laptop, "kv-bytes-per-token")
    wait_until_python_ready(laptop)
    replace_code(laptop, STALLS_ON_THIRD)
    laptop.click(RUN)
    report = laptop.wait_for_selector(".report[data-verdict=TLE]", timeout=30_000)
    assert "Time limit exceeded on case qwen2.5-7b-bf16" in report.inner_text()
    slow = laptop.locator(".case[data-case='qwen2.5-7b-bf16']")
    assert slow.locator(".badge-tle").count() == 1
    assert "ran past 3 s (the problem allows 1 s per case" in slow.inner_text()
    before = laptop.locator(".case .badge-ac")
    assert before.count() == 2, "the two cases judged before it keep their verdicts"
    wait_until_python_ready(laptop)


SYNTAX_ERROR_ON_6 = (
    "def kv_bytes_per_token(config, kv_dtype):\n" + "    x = 1\n" * 4 + "    return (\n"
)


@pytest.mark.locale("en-US")
def test_a_compile_error_has_one_headline_naming_its_line_once(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    replace_code(page, SYNTAX_ERROR_ON_6)
    page.click(RUN)
    report = page.wait_for_selector(".report[data-verdict=CE]")
    head = page.locator(".report-head").inner_text()
    assert "Compile error" in head and "passed" not in head, head
    where = page.locator(".compile-where").inner_text()
    assert where == "Your code does not compile, at line 6", where
    assert report.inner_text().count("line 6") == 1


def test_old_results_grey_out_and_are_busy_while_a_new_run_is_on_its_way(page: Any) -> None:
    open_problem(page)
    wait_until_python_ready(page)
    replace_code(page, reference_source())
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")
    panel = page.locator("[data-panel=results]")
    assert panel.get_attribute("aria-busy") is None
    replace_code(page, "def kv_bytes_per_token(config, kv_dtype):\n    while True:\n        pass\n")
    page.click(RUN)
    page.wait_for_selector("[data-panel=results][aria-busy=true].is-stale .report[data-verdict=AC]")
    opacity = page.locator("[data-panel=results] .report").evaluate(
        "el => getComputedStyle(el).opacity"
    )
    assert float(opacity) < 0.6
    page.click("button[data-action=stop]")
    page.wait_for_selector("[data-panel=results]:not([aria-busy]) .notice-warn")
    assert page.locator("[data-panel=results].is-stale").count() == 0


def test_a_submission_time_reads_the_same_on_the_problem_page_and_the_list(page: Any) -> None:
    register(page, prefix="dates")
    open_problem(page)
    wait_until_python_ready(page)
    replace_code(page, reference_source())
    page.click(SUBMIT)
    page.wait_for_selector(".live .submission[data-verdict=AC]")
    open_problem(page)
    page.click("button[data-tab=submissions]")
    listed = page.locator("[data-panel=submissions] .submission time").first
    in_workspace = listed.inner_text()
    stamp = listed.get_attribute("datetime")
    page.goto("/submissions")
    served = page.locator(f"#history time[datetime='{stamp}']")
    assert served.count() == 1
    assert served.inner_text() == in_workspace
    # The viewer's locale (en-US here), not the server's "YYYY-MM-DD HH:MM UTC".
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s?[AP]M", in_workspace), (
        in_workspace
    )


@pytest.mark.locale("zh-CN")
def test_dates_follow_the_chinese_page_too(page: Any) -> None:
    register(page, prefix="riqi")
    open_problem(page)
    wait_until_python_ready(page)
    replace_code(page, reference_source())
    page.keyboard.press("Control+Shift+Enter")  # the editor's Submit shortcut
    page.wait_for_selector(".live .submission[data-verdict=AC]")
    text = page.locator(".live .submission time").inner_text()
    page.goto("/submissions")
    assert page.locator("#history time").first.inner_text() == text
    assert re.fullmatch(r"\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}", text), text


def test_ctrl_enter_runs_and_ctrl_shift_enter_submits_from_anywhere_on_the_page(page: Any) -> None:
    register(page, prefix="keys")
    open_problem(page)
    wait_until_python_ready(page)
    assert "Ctrl/⌘ + Enter" in (page.locator(RUN).get_attribute("title") or "")
    assert "Ctrl/⌘ + Shift + Enter" in (page.locator(SUBMIT).get_attribute("title") or "")
    replace_code(page, reference_source())
    page.click(".statement-pane h2")  # the focus leaves the editor
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".report[data-verdict=AC]")
    page.click(".statement-pane h2")
    page.keyboard.press("Control+Shift+Enter")
    page.wait_for_selector(".live .submission[data-verdict=AC]")
    assert page.locator(".live .submission").count() == 1, "one shortcut, one submission"


@pytest.mark.locale("zh-CN")
def test_the_shortcuts_are_named_in_chinese_titles(page: Any) -> None:
    register(page, prefix="kuaijie")
    open_problem(page)
    assert (
        page.locator(RUN).get_attribute("title")
        == "在浏览器里运行公开用例（Ctrl/⌘ + Enter，页面任意位置都可以）"
    )
    assert (
        page.locator(SUBMIT).get_attribute("title") == "提交到服务器评测（Ctrl/⌘ + Shift + Enter）"
    )
