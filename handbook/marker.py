"""The marker an author writes in a page's Markdown where a problem's workspace goes.

A fenced block whose info string is `practice`, holding the problem's slug and, for a
torch-tier problem on a site without a platform, the word `offline`:

    ```practice
    tokens-processed
    ```

Fenced so that any Markdown renderer that does not know the plugin shows it as code, not
as stray text, and so that it can never be mistaken for prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A fence's opening line: ``` or ~~~ (three or more) and its info string, at the start of a
# line (an indented fence is code inside something else).
_OPENING = re.compile(r"(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*?)[ \t]*")
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
FLAGS = frozenset({"offline"})


class MarkerError(ValueError):
    """A marker that cannot become an embed; its message names the marker."""


@dataclass(frozen=True, slots=True)
class Marker:
    slug: str
    line: int  # 1-based, of the opening fence: where the author looks
    offline: bool  # a torch-tier problem shown with its offline command, no platform
    start: int
    end: int

    def said(self) -> str:
        return f"line {self.line}: ```practice {self.slug}```"


def find_markers(markdown: str) -> list[Marker]:
    """Every marker of the page, in order; MarkerError for one that does not parse. A
    ```practice block shown inside another fence (a ````markdown example) is that fence's
    text, not a marker."""
    found = []
    lines = markdown.splitlines(keepends=True)
    at, offset = 0, 0
    while at < len(lines):
        opening = _OPENING.fullmatch(lines[at].rstrip("\r\n"))
        if opening is None:
            offset += len(lines[at])
            at += 1
            continue
        fence, start = opening.group("fence"), offset
        closing = at + 1
        while closing < len(lines) and not _closes(lines[closing], fence):
            closing += 1
        end = sum(len(line) for line in lines[at : closing + 1])
        if opening.group("info") == "practice":
            body = "".join(lines[at + 1 : closing])
            found.append(_marker(body, at + 1, start, start + end))
        offset += end
        at = closing + 1
    return found


def _closes(line: str, fence: str) -> bool:
    """CommonMark: the same character, at least as many, and nothing else on the line."""
    text = line.rstrip("\r\n").rstrip(" \t")
    return text.startswith(fence[0] * len(fence)) and set(text) == {fence[0]}


def _marker(body: str, line: int, start: int, end: int) -> Marker:
    words = body.split()
    if not words:
        raise MarkerError(f"line {line}: a ```practice``` block names no problem")
    slug, flags = words[0], words[1:]
    if not _SLUG.fullmatch(slug):
        raise MarkerError(f"line {line}: {slug[:70]!r} is not a problem's slug")
    unknown = [flag for flag in flags if flag not in FLAGS]
    if unknown:
        raise MarkerError(
            f"line {line}: ```practice {slug}``` has {unknown[0][:40]!r}; "
            f"after the slug only {', '.join(sorted(FLAGS))} may follow"
        )
    return Marker(slug, line, "offline" in flags, start, end)


def replace_markers(markdown: str, markers: list[Marker], html: list[str]) -> str:
    """The page with each marker replaced by its element (blank lines around it, so that
    Markdown keeps it as one raw HTML block)."""
    out, at = [], 0
    for marker, element in zip(markers, html, strict=True):
        out.append(markdown[at : marker.start])
        out.append(f"\n{element}\n")
        at = marker.end
    out.append(markdown[at:])
    return "".join(out)
