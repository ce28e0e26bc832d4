"""The chapter sections a statement cites are the chapter's (issue 23, section 7).

A statement names the section it practises in quotes ("为什么 K、V 可以缓存"一节; section
"Why K and V can be cached"). Those names must be the headings the site shows for the
chapter (web/content/handbook.py, whose words live in web/i18n.py), in the statement's own
language, so that a reader can find the section; a quoted name may also be a heading of the
statement itself ("与 vLLM 的不同"一节). The site's list in turn must be the chapter's own
headings, checked where the chapter text is present (../shared/handbook, next to the
repository; a CI machine may not have it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.messages import LANGS
from web.content.handbook import CHAPTER as SITE_CHAPTER
from web.content.handbook import SECTIONS

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
CHAPTER = ROOT.parent / "shared" / "handbook" / "kv-cache-chapter.zh.txt"
SLUGS = sorted(p.name for p in PROBLEMS.iterdir() if (p / "problem.toml").is_file())

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")

# zh: "名字"一节, “名字”与“名字”两节 (bold inside the quotes allowed).
ZH_CITE = re.compile(r"((?:[\"“]\**[^\"“”\n*]+\**[\"”]\s*[和与、及]?\s*)+)[一两三]节")
# en: section "Name", sections "Name" and "Name" (bold around the quotes allowed).
EN_CITE = re.compile(r"sections?\s+((?:\**\"[^\"]+\"\**(?:,\s*|\s+and\s+)?)+)")
QUOTED = re.compile(r"[\"“]\**([^\"“”*]+)\**[\"”]")


def statement(slug: str, lang: str) -> str:
    return (PROBLEMS / slug / f"statement.{lang}.md").read_text(encoding="utf-8")


def cited_sections(text: str, lang: str) -> list[str]:
    """Every name the statement cites as a section, in order."""
    if lang == "zh":
        joined, pattern = text.replace("\n", ""), ZH_CITE
    else:
        joined, pattern = re.sub(r"\s*\n\s*", " ", text), EN_CITE
    return [name.strip() for m in pattern.finditer(joined) for name in QUOTED.findall(m.group(1))]


def own_headings(text: str) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def chapter_titles(lang: str) -> list[str]:
    return [s.title[lang] for s in SECTIONS]


def test_the_citation_patterns_find_what_statements_write() -> None:
    """The patterns are what the statements use; a pattern that found nothing would make
    the test below pass for nothing."""
    zh = '本题练习本章"**批处理：让多个请求分摊权重读取**"一节，及“prefill 与 decode”和“小结”两节。'
    assert cited_sections(zh, "zh") == [
        "批处理：让多个请求分摊权重读取",
        "prefill 与 decode",
        "小结",
    ]
    en = 'the section **"Batching: X\nY"**, and sections "A" and "B": the "C" notes'
    assert cited_sections(en, "en") == ["Batching: X Y", "A", "B"]
    cited = {
        lang: [name for s in SLUGS for name in cited_sections(statement(s, lang), lang)]
        for lang in LANGS
    }
    assert all(len(names) >= 5 for names in cited.values()), cited


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", SLUGS)
def test_cited_section_names_are_the_chapters(slug: str, lang: str) -> None:
    text = statement(slug, lang)
    allowed = set(chapter_titles(lang)) | own_headings(text)
    unknown = [name for name in cited_sections(text, lang) if name not in allowed]
    assert not unknown, (
        f"{slug}/statement.{lang}.md cites {unknown}, which are not sections of the chapter "
        f"({chapter_titles(lang)}) nor headings of the statement"
    )


@pytest.mark.parametrize("slug", SLUGS)
def test_english_pages_keep_no_chinese(slug: str) -> None:
    """An English reader cannot look up a Chinese section name: it is translated, as the
    site's catalog translates the chapter's headings."""
    for path in sorted((PROBLEMS / slug).glob("*.en.md")):
        found = [line for line in path.read_text(encoding="utf-8").splitlines() if CJK.search(line)]
        assert not found, f"{path.relative_to(ROOT)} keeps Chinese: {found}"


def chapter_headings(text: str) -> list[str]:
    """The chapter's headings, as the text export marks them (a trailing pilcrow)."""
    return [line[:-1].strip() for line in text.splitlines() if line.endswith("¶")]


@pytest.mark.skipif(
    not CHAPTER.is_file(), reason="the handbook chapter is not next to the repository"
)
def test_the_sites_sections_are_the_chapters_headings() -> None:
    text = CHAPTER.read_text(encoding="utf-8")
    headings = chapter_headings(text)
    # The first heading is the chapter's title; the self-test opens the chapter under a line
    # of its own ("自测：能答上来就可以跳过本章"), before the first numbered section.
    assert headings[0] == SITE_CHAPTER["title"]["zh"]
    first_section = text.index(headings[1] + "¶")
    self_test = chapter_titles("zh")[0]
    assert any(line.startswith(self_test + "：") for line in text[:first_section].splitlines()), (
        f"the chapter has no line starting '{self_test}：' before its first section"
    )
    # The rest of the site's sections are the chapter's headings in order, up to the
    # exercises and the summary (which the problems do not practise as sections).
    assert chapter_titles("zh")[1:] == headings[1 : len(SECTIONS)]
    assert headings[len(SECTIONS) :] == ["练习", "小结"]
