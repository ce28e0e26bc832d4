"""A problem's hints and editorial (judge/problem/guide.py): optional, both languages or neither,
and every mistake in them is a SpecError naming the file (and the hint)."""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.errors import SpecError
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem

HINTS_EN = "## Count the layers\nEvery layer keeps its own K and V.\n\n## Then the heads\nOnly KV heads count.\n"
HINTS_ZH = "## 先数层\n每一层都有自己的 K 和 V。\n\n## 再看头\n只算 KV 头。\n"


def test_a_problem_without_guidance_has_no_hints_and_no_editorial(
    make_problem: MakeProblem,
) -> None:
    problem = load_problem(make_problem())
    assert problem.hints == () and not problem.has_editorial
    assert problem.editorial("en") is None


def test_hints_are_read_in_order_with_both_languages_paired(make_problem: MakeProblem) -> None:
    folder = make_problem(files={"hints.en.md": HINTS_EN, "hints.zh.md": HINTS_ZH})
    hints = load_problem(folder).hints
    assert [h.title["en"] for h in hints] == ["Count the layers", "Then the heads"]
    assert [h.title["zh"] for h in hints] == ["先数层", "再看头"]
    assert hints[1].text == {"en": "Only KV heads count.", "zh": "只算 KV 头。"}


def test_a_heading_inside_a_code_block_does_not_start_a_hint(make_problem: MakeProblem) -> None:
    en = "## One\n```python\n## not a hint\nx = 1\n```\n"
    zh = "## 一\n```python\n## 不是提示\nx = 1\n```\n"
    hints = load_problem(make_problem(files={"hints.en.md": en, "hints.zh.md": zh})).hints
    assert len(hints) == 1 and "## not a hint" in hints[0].text["en"]


def test_the_editorial_is_read_per_language(make_problem: MakeProblem) -> None:
    folder = make_problem(files={"editorial.en.md": "The idea.\n", "editorial.zh.md": "思路。\n"})
    problem = load_problem(folder)
    assert problem.has_editorial
    assert problem.editorial("zh") == "思路。\n" and problem.editorial("en") == "The idea.\n"


@pytest.mark.parametrize(
    ("files", "file", "field", "says"),
    [
        ({"hints.en.md": HINTS_EN}, "hints.zh.md", None, "both languages or neither"),
        ({"editorial.zh.md": "思路。"}, "editorial.en.md", None, "both languages or neither"),
        (
            {"editorial.zh.md": "思路。", "editorial.en.md": "  \n"},
            "editorial.en.md",
            None,
            "empty",
        ),
        (
            {"hints.en.md": "intro\n" + HINTS_EN, "hints.zh.md": HINTS_ZH},
            "hints.en.md",
            None,
            "line 1: text before the first '## ' heading",
        ),
        (
            {"hints.en.md": "just text\n", "hints.zh.md": HINTS_ZH},
            "hints.en.md",
            None,
            "line 1: text before",
        ),
        (
            {"hints.en.md": "## One\ntext\n", "hints.zh.md": HINTS_ZH},
            "hints.en.md",
            None,
            "1 hints, but hints.zh.md has 2",
        ),
        (
            {"hints.en.md": "## One\n\n## Two\nx\n", "hints.zh.md": HINTS_ZH},
            "hints.en.md",
            "hint[1]",
            "no text under its heading",
        ),
        (
            {"hints.en.md": "##  \nx\n", "hints.zh.md": "## 一\nx\n"},
            "hints.en.md",
            "hint[1]",
            "no title",
        ),
        (
            {"hints.en.md": "## a\nx\n" * 6, "hints.zh.md": HINTS_ZH},
            "hints.en.md",
            None,
            "6 hints; at most 5",
        ),
    ],
)
def test_a_malformed_hint_or_editorial_names_its_file_and_hint(
    make_problem: MakeProblem, files: dict[str, str], file: str, field: str | None, says: str
) -> None:
    with pytest.raises(SpecError) as info:
        load_problem(make_problem(files=files))
    assert info.value.file == f"problems/add/{file}" and info.value.field == field
    assert says in str(info.value)


def test_every_code_problem_has_hints_and_an_editorial() -> None:
    """Every code problem of the chapter, browser or torch tier, carries 2-3 hints and an
    editorial (a quiz has neither: its answers are the explanation)."""
    for problem in ProblemSet().all():
        if problem.quiz is None:
            assert 2 <= len(problem.hints) <= 3, problem.slug
            assert problem.has_editorial, problem.slug
