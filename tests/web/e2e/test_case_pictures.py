"""Pictures where people would rather look than read, in real Chromium (issue 12,
section 2): a wrong block-table solution's card draws the block pool, expected beside got,
with the differing cells marked and buttons that step through the trace; a wrong roofline
solution's card plots its points on the case's roofline; a wrong kv-capacity solution's
card splits the GPU memory into weights and KV.

`PJ_DOCS_SCREENSHOTS=1` also writes the cards into docs/img/ for docs/FRONTEND.md.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from .pages import ARTIFACTS, ROOT, RUN, open_problem, replace_code, wait_until_python_ready

pytestmark = pytest.mark.browser

DOCS_IMG = ROOT / "docs" / "img"
SIDES = ("expected", "got")


def _wrong(slug: str, name: str) -> str:
    return (ROOT / "problems" / slug / "solutions" / "wrong" / name).read_text(encoding="utf-8")


def run_code(page: Any, slug: str, source: str) -> Any:
    open_problem(page, slug)
    wait_until_python_ready(page)
    replace_code(page, source)
    page.click(RUN)
    return page.wait_for_selector(".report")


def shoot(element: Any, name: str) -> None:
    """The picture alone, at the width of a laptop's results panel."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    element.page.set_viewport_size({"width": 1366, "height": 2000})
    element.scroll_into_view_if_needed()
    element.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if os.environ.get("PJ_DOCS_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        element.screenshot(path=str(DOCS_IMG / f"{name}.png"))


def test_a_wrong_block_table_shows_the_pool_with_marked_cells_and_steps_through_the_trace(
    page: Any,
) -> None:
    run_code(page, "block-table", _wrong("block-table", "free_first_block_first.py"))
    picture = page.locator(".case[data-case=free-order] .pool-picture")
    picture.wait_for()
    assert picture.get_attribute("data-step") == "2", "it opens at the first differing step"
    got = picture.locator("figure[data-side=got]")
    marked = got.locator("g[data-differs=true]")
    assert marked.count() == 2
    # Not colour alone: a differing cell has a dashed outline and a "!".
    assert marked.first.locator("rect").get_attribute("stroke-dasharray")
    assert "!" in marked.first.inner_html()
    assert got.locator("g[data-block='0'] text").all_text_contents()[1] == "f@2"
    svg = got.locator("svg[role=img]")
    assert svg.locator("title").text_content() == "Got block pool after step 2"
    assert "block 0: f@2 (differs)" in (svg.locator("desc").text_content() or "")
    assert "free queue: 4 5 0 1 2" in (got.text_content() or "")
    shoot(picture, "pool-block-table-failure")

    back = picture.locator("button[data-action=pool-back]")
    forward = picture.locator("button[data-action=pool-forward]")
    assert forward.is_disabled()
    back.click()
    assert picture.get_attribute("data-step") == "1"
    assert picture.locator("g[data-differs=true]").count() == 0, "the sides agree before it"
    assert "append(seq_id=2, n=2)" in picture.locator(".pool-step").inner_text()
    back.click()
    assert picture.get_attribute("data-step") == "0" and back.is_disabled()
    forward.click()
    forward.click()
    assert picture.get_attribute("data-step") == "2"
    assert picture.locator("figure[data-side=got] g[data-differs=true]").count() == 2


def test_a_wrong_roofline_plots_its_points_under_the_cases_roof(page: Any) -> None:
    run_code(page, "roofline", _wrong("roofline", "time_sum_not_max.py"))
    plot = page.locator(".case[data-case=llama-3-8b-up-h100-b1-s512] .roofline-picture")
    plot.wait_for()
    title = plot.locator("svg title").text_content() or ""
    assert title.startswith("Roofline: peak 989 TFLOP/s, 3.35 TB/s")
    assert plot.locator("g[data-side=expected]").count() == 2
    assert plot.locator("g[data-side=got]").count() == 2
    want = plot.locator("g[data-side=expected][data-phase=prefill] circle")
    got = plot.locator("g[data-side=got][data-phase=prefill] path")
    # Adding the two times instead of taking the larger is slower: drawn below the roof.
    assert float(got.bounding_box()["y"]) > float(want.bounding_box()["y"])
    shoot(plot, "roofline-failure")


def test_a_wrong_capacity_splits_the_gpu_memory_into_weights_and_kv(page: Any) -> None:
    run_code(page, "kv-capacity", _wrong("kv-capacity", "gib_for_gb.py"))
    bar = page.locator(".case[data-case=capacity-llama-3-8b-h100-4k] .memory-picture")
    bar.wait_for()
    assert bar.locator("g.memory-bar").count() == 2
    text = bar.text_content() or ""
    assert "weights 16.1 GB" in text and "(104 requests)" in text
    shoot(bar, "memory-kv-capacity-failure")


def test_a_wrong_scheduler_shows_the_pool_and_queues_and_steps_back(page: Any) -> None:
    run_code(page, "scheduler", _wrong("scheduler", "preempted_to_waiting_tail.py"))
    picture = page.locator(".case[data-case=preemption-by-recompute] .bar-picture")
    picture.wait_for()
    assert picture.get_attribute("data-step") == "2", "it opens at the first differing step"
    got = picture.locator("figure[data-side=got]")
    assert "! waiting: [2 1]" in (got.text_content() or "")
    assert "used 3 · free 1" in (got.text_content() or "")
    assert got.locator("svg[role=img] title").text_content() == "Got: pool, in blocks"
    shoot(picture, "bars-scheduler-failure")
    back = picture.locator("button[data-action=bar-back]")
    back.click()
    assert picture.get_attribute("data-step") == "1"
    assert "agree" in picture.locator(".bar-note").inner_text()


def test_a_wrong_fragmentation_marks_the_external_waste_it_invents(page: Any) -> None:
    run_code(page, "fragmentation", _wrong("fragmentation", "no_coalesce.py"))
    picture = page.locator(".case[data-case=external-waste] .bar-picture")
    picture.wait_for()
    got = picture.locator("figure[data-side=got] .bar-row[data-row=contiguous]")
    marked = got.locator("g[data-differs=true]")
    assert [m.get_attribute("data-part") for m in marked.all()] == ["external", "hole"]
    # Not colour alone: a differing part has a dashed outline and its size is written out.
    assert marked.first.locator("rect").get_attribute("stroke-dasharray")
    assert "! external waste 128" in (got.text_content() or "")
    paged = picture.locator("figure[data-side=got] .bar-row[data-row=paged]")
    assert paged.locator("g[data-differs=true]").count() == 0
    shoot(picture, "bars-fragmentation-failure")


def test_a_kv_size_that_forgets_gqa_stands_beside_its_k_and_v(page: Any) -> None:
    run_code(page, "kv-bytes-per-token", _wrong("kv-bytes-per-token", "forgets_gqa.py"))
    picture = page.locator(".case[data-case=qwen3-0\\.6b-bf16] .bar-picture")
    picture.wait_for()
    want = picture.locator("figure[data-side=expected] g.bar-part")
    assert [p.get_attribute("data-part") for p in want.all()] == ["k", "v"]
    got = picture.locator("figure[data-side=got] g.bar-part[data-differs=true]")
    assert got.count() == 1
    # Sixteen query heads counted instead of eight KV heads: twice as wide as K and V.
    width = float(got.bounding_box()["width"])
    expected_width = sum(float(p.bounding_box()["width"]) for p in want.all())
    assert abs(width / expected_width - 2) < 0.05
    formula = picture.locator(".bar-formula").inner_text()
    assert formula == "28 layers × 2 (K + V) × 8 KV heads × 128 head dim × 2 bytes = 114688"
    # Both bars write their total, so the two are read side by side (the fault:
    # the expected bar listed K and V alone).
    texts = [picture.locator(f"figure[data-side={s}] .bar-text").inner_text() for s in SIDES]
    assert texts == ["K (keys) 57344 · V (values) 57344 = total 114688", "! total 229376"]
    shoot(picture, "bars-kv-bytes-failure")
