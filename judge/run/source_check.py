"""Submitted source is checked before anything runs it."""

from __future__ import annotations

from judge.errors import SourceError

MAX_SOURCE_BYTES = 64 * 1024


def validate_source(raw: bytes | str, limit: int = MAX_SOURCE_BYTES) -> str:
    """Return the source as text, or raise SourceError with a one-line reason."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if len(data) > limit:
        raise SourceError(f"source is {len(data):,} bytes; the limit is {limit:,} bytes")
    nul = data.find(b"\0")
    if nul >= 0:
        raise SourceError(f"source contains a NUL byte at offset {nul}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"source is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not text.strip():
        raise SourceError("source is empty")
    return text
