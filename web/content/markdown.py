"""Statements from Markdown to HTML on the server. Raw HTML in a statement is escaped,
and $...$ / $$...$$ math is kept verbatim (not read as Markdown) for KaTeX on the client."""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token


def render_markdown(text: str) -> str:
    return str(_parser().render(text))


@lru_cache(maxsize=1)
def render_inline_markdown(text: str) -> str:
    """One line of Markdown (a quiz option) as inline HTML: no paragraph around it."""
    return str(_parser().renderInline(text))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.validateLink = _safe_link  # type: ignore[method-assign]
    md.inline.ruler.before("escape", "math", _math_rule)
    md.add_render_rule("math_inline", _render_math)
    md.add_render_rule("softbreak", _render_softbreak)
    return md


# Chinese and Japanese text, with its full-width punctuation: a line break between two of
# these is no word boundary, so it must not become the space a browser shows for "\n".
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def _render_softbreak(self: object, tokens: list[Token], idx: int, *_: object) -> str:
    before = tokens[idx - 1].content[-1:] if idx > 0 else ""
    after = tokens[idx + 1].content[:1] if idx + 1 < len(tokens) else ""
    return "" if _CJK.match(before) and _CJK.match(after) else "\n"


def _safe_link(url: str) -> bool:
    # Only plain web links and in-page anchors; no javascript:, data: or vbscript: URLs.
    lowered = url.strip().lower()
    return lowered.startswith(("http://", "https://", "#", "/")) or ":" not in lowered


def _math_rule(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if src[start] != "$" or (start > 0 and src[start - 1] == "\\"):
        return False
    delim = "$$" if src.startswith("$$", start) else "$"
    end = src.find(delim, start + len(delim))
    while end != -1 and src[end - 1] == "\\":
        end = src.find(delim, end + 1)
    body = src[start + len(delim) : end] if end != -1 else ""
    if end == -1 or not body.strip():
        return False
    if not silent:
        token = state.push("math_inline", "span", 0)
        token.content = body
        token.markup = delim
    state.pos = end + len(delim)
    return True


def _render_math(self: object, tokens: list[Token], idx: int, *_: object) -> str:
    token = tokens[idx]
    kind = "display" if token.markup == "$$" else "inline"
    return f'<span class="math {kind}">{escape(token.markup + token.content + token.markup)}</span>'
