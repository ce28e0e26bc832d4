"""A problem's optional guidance: hints (public, revealed one at a time) and the editorial
(the reference's idea, shown only after an accepted submission), each in both languages.

    hints.zh.md / hints.en.md          one hint per "## " section: its heading, then its text
    editorial.zh.md / editorial.en.md  Markdown; never in the public bundle

Each pair is both files or neither: a learner reading in one language must never find a
hint or an editorial that the other language does not have.
"""

from __future__ import annotations

from pathlib import Path

from judge.errors import SpecError
from judge.messages import LANGS
from judge.record import record

# More than a few hints is a walkthrough, not a nudge.
MAX_HINTS = 5
HINT_HEADING = "## "
FENCE = "```"


@record
class Hint:
    """One hint in both languages: a short heading and its Markdown text."""

    title: dict[str, str]
    text: dict[str, str]

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"title": dict(self.title), "text": dict(self.text)}


def load_hints(folder: Path) -> tuple[Hint, ...]:
    """hints.<lang>.md for both languages, or () when the problem has none."""
    texts = _pair(folder, "hints")
    if texts is None:
        return ()
    parsed = {
        lang: _sections(text, _name(folder, f"hints.{lang}.md")) for lang, text in texts.items()
    }
    zh, en = parsed["zh"], parsed["en"]
    if len(zh) != len(en):
        raise SpecError(
            _name(folder, "hints.en.md"),
            None,
            f"{len(en)} hints, but hints.zh.md has {len(zh)}: each hint needs both languages",
        )
    return tuple(
        Hint(title={"zh": z[0], "en": e[0]}, text={"zh": z[1], "en": e[1]})
        for z, e in zip(zh, en, strict=True)
    )


def has_editorial(folder: Path) -> bool:
    """Whether editorial.<lang>.md exists for both languages (checked: neither empty)."""
    return _pair(folder, "editorial") is not None


def _pair(folder: Path, stem: str) -> dict[str, str] | None:
    """Both languages' text of stem.<lang>.md, or None when neither file exists."""
    present = {lang: folder / f"{stem}.{lang}.md" for lang in LANGS}
    if not any(path.exists() for path in present.values()):
        return None
    texts = {}
    for lang, path in present.items():
        name = _name(folder, path.name)
        if not path.is_file():
            other = next(p.name for p in present.values() if p.exists())
            raise SpecError(name, None, f"missing file ({other} exists: both languages or neither)")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError(name, None, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
        if not text.strip():
            raise SpecError(name, None, "empty: write it, or delete both languages' files")
        texts[lang] = text
    return texts


def _sections(text: str, name: str) -> list[tuple[str, str]]:
    """The "## " sections of a hints file as (heading, text), in order."""
    sections: list[tuple[str, list[str]]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(FENCE):
            fenced = not fenced  # a "## " comment in a code block is not a heading
        if not fenced and line.startswith(HINT_HEADING):
            sections.append((line[len(HINT_HEADING) :].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        elif line.strip():
            raise SpecError(
                name,
                None,
                f"line {number}: text before the first '## ' heading (one hint per section)",
            )
    if not sections:
        raise SpecError(name, None, "no '## ' heading: each hint is a '## ' section")
    if len(sections) > MAX_HINTS:
        raise SpecError(name, None, f"{len(sections)} hints; at most {MAX_HINTS}")
    out = []
    for index, (title, lines) in enumerate(sections, start=1):
        body = "\n".join(lines).strip()
        if not title:
            raise SpecError(name, f"hint[{index}]", "the '## ' heading has no title")
        if not body:
            raise SpecError(name, f"hint[{index}]", "no text under its heading")
        out.append((title, body))
    return out


def _name(folder: Path, file: str) -> str:
    # The same shape as the loader's other errors: problems/<slug>/<file>.
    return "/".join((*folder.parts[-2:], file))
