"""The handbook chapter the problems practise: its sections in order, each with a line in
our own words (in the UI's catalog, web/i18n.py), so the landing page can show the chapter
and a problem can link to the section its problem.toml names (`section = "..."`)."""

from __future__ import annotations

from dataclasses import dataclass

from judge.messages import LANGS
from web.i18n import translate


@dataclass(frozen=True, slots=True)
class Section:
    id: str  # what problem.toml's `section` names; the landing page's anchor is section-<id>

    @property
    def title(self) -> dict[str, str]:
        """The chapter's own heading, translated for English readers."""
        return _both(f"section_{self._key}_title")

    @property
    def gist(self) -> dict[str, str]:
        """One line on what the section teaches."""
        return _both(f"section_{self._key}_gist")

    @property
    def anchor(self) -> str:
        return f"section-{self.id}"

    @property
    def _key(self) -> str:
        return self.id.replace("-", "_")


def _both(key: str) -> dict[str, str]:
    """A catalog message in every language: the templates pick the reader's."""
    return {lang: translate(key, lang) for lang in LANGS}


CHAPTER: dict[str, dict[str, str]] = {"title": _both("chapter_title")}

# The chapter's sections in order; their words are web/i18n.py's section_<id>_title/_gist.
SECTIONS: tuple[Section, ...] = tuple(
    Section(section_id)
    for section_id in ("self-test", "why-cache", "verify", "prefill-decode", "batching", "memory")
)

BY_ID: dict[str, Section] = {s.id: s for s in SECTIONS}


def section_of(section_id: str | None) -> Section | None:
    """The section a problem names, or None where it names none (or one the chapter lacks)."""
    return BY_ID.get(section_id) if section_id is not None else None
