"""Text a submission produced, bounded where it could be megabytes: cut, and say so.

A learner reads every message whole; only text whose length the submission controls (an
exception's message, a traceback, a returned value's repr, what it printed) has a cap,
and a cut text ends with how much was left out, in both languages, so nothing is lost
silently.

The note is the one sentence of the core not in judge/messages.py's catalog: the child
process imports this module at every start and cuts text after the submission has run,
so reaching the catalog would cost each start its import (a few milliseconds) or
import it lazily after untrusted code has had the interpreter. The note is raw text with
both languages in it, never translated later, so it needs no key either.
"""

from __future__ import annotations


def bounded(text: str, limit: int) -> str:
    """`text` itself if it has at most `limit` characters; else its first `limit` and a
    note of how many more there were."""
    if len(text) <= limit:
        return text
    return text[:limit] + cut_note(len(text) - limit)


def cut_note(left_out: int) -> str:
    """What ends a cut text: how many characters are missing."""
    return f" … [{left_out:,} more characters not shown / 另有 {left_out:,} 个字符未显示]"
