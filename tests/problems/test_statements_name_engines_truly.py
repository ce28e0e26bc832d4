"""What the capstone's statements and editorials say of vLLM and SGLang is what their source
does (issue 37, section 5), in both languages: no claim the engines' code contradicts, and
where this problem's rule is not theirs, each says so."""

from __future__ import annotations

from pathlib import Path

import pytest

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def text(slug: str, name: str) -> str:
    """The file's text with its line breaks and indents read as single spaces."""
    return " ".join((PROBLEMS / slug / name).read_text(encoding="utf-8").split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_swap_copies_are_not_said_to_overlap_with_compute(lang: str) -> None:
    said = text("serve-engine", f"statement.{lang}.md")
    wrong = {"en": "copies overlap with compute", "zh": "复制和计算重叠进行"}[lang]
    right = {"en": "so they did not overlap with it", "zh": "所以复制并不和前向重叠"}[lang]
    assert wrong not in said and right in said


@pytest.mark.parametrize(
    ("slug", "name"), [("serve-paged", "statement"), ("serve-engine", "statement")]
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_vllm_v0_is_said_to_recompute_by_default_and_swap_for_beams_and_n(
    slug: str, name: str, lang: str
) -> None:
    said = text(slug, f"{name}.{lang}.md")
    assert {"en": "n > 1", "zh": "n > 1"}[lang] in said
    assert {"en": "V1 only recomputes", "zh": "V1 只用重新计算"}[lang] in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_capstone_says_where_sglang_differs(lang: str) -> None:
    said = text("serve-engine", f"statement.{lang}.md")
    assert {"en": "vLLM and SGLang are at heart", "zh": "就是 vLLM 和 SGLang 的核心"}[
        lang
    ] not in said
    assert {
        "en": "SGLang by default does not mix prefill and decode in one batch",
        "zh": "SGLang 默认不在同一个批里混合 prefill 和 decode",
    }[lang] in said
    assert {
        "en": "SGLang also puts a retracted (preempted) request back at the tail",
        "zh": "SGLang 还把被撤回（抢占）的请求放回等待队列的 队尾",
    }[lang].replace("的 队尾", "的队尾") in said.replace("的 队尾", "的队尾")


@pytest.mark.parametrize("slug", ["serve-paged", "serve-engine"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_editorials_say_the_victims_choice_is_vllms_priority_and_the_cost_reason_ours(
    slug: str, lang: str
) -> None:
    said = text(slug, f"editorial.{lang}.md")
    assert {"en": "by priority", "zh": "按优先级"}[lang] in said
    assert {"en": "is ours", "zh": "是我们的"}[lang] in said
    # Sending a preempted request to the back is a mistake here, and SGLang's own way.
    assert {
        "en": "SGLang does put a retracted request at the tail",
        "zh": "SGLang 确实把被撤回的请求放到等待队列的队尾",
    }[lang] in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_radix_eviction_is_said_to_free_the_whole_allocation_as_sglang_does(lang: str) -> None:
    said = text("radix-prefix-cache", f"statement.{lang}.md")
    assert {"en": "the whole allocation", "zh": "即整个分配的大小"}[lang] in said
