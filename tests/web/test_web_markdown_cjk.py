"""Chinese statements: a line break inside a paragraph is no space between two characters."""

from __future__ import annotations

import re
from pathlib import Path

from web.content.markdown import render_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_a_line_break_between_chinese_characters_leaves_no_space() -> None:
    """Pins the stray space a browser showed where a zh paragraph was wrapped in the source."""
    text = (ROOT / "problems" / "kv-bytes-per-token" / "statement.zh.md").read_text("utf-8")
    assert "字节，\n决定了" in text  # the real statement wraps its first paragraph here
    html = render_markdown(text)
    assert "字节，决定了" in html
    assert not re.search(r"[\u4e00-\u9fff，。]\n[\u4e00-\u9fff]", html)


def test_a_line_break_next_to_latin_text_is_still_a_space() -> None:
    assert render_markdown("KV cache\n很大") == "<p>KV cache\n很大</p>\n"
    assert render_markdown("one\ntwo") == "<p>one\ntwo</p>\n"
    assert render_markdown("缓存\n很大") == "<p>缓存很大</p>\n"
