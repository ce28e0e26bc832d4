"""Log lines a client cannot forge: every record of the process escapes the text it holds.

A path, a header, a form value or a broker message reaches log lines in many places: the
access log, `web.errors`' line for an unexpected error, Flask's "Exception on <path>",
waitress's "Exception while serving <path>", Celery's task lines, and any exception's
message in a traceback. A newline there ("%0A" in a path) would write a second, fake
record ("FORGED ... INFO web.access: ..."), an ANSI escape would rewrite the operator's
terminal. Escaping at each call site would miss the libraries' own lines, and escaping in
a formatter would depend on how the deployment configures its handlers; so the records
themselves escape:

- a record's message (`getMessage()`, what every formatter prints) has each character
  that is not printable written as its Python escape (`\\n`, `\\x1b`, `\\u2028`);
- the text of an exception or a stack that a formatter adds below the message keeps its
  lines, but each is indented, so that only the first line of a record starts at the
  beginning of a line, and its characters are escaped as above, line by line.

`install()` sets this for the process (the app factory and `judge worker` call it); it
wraps any record factory already installed, and a second call changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

INDENT = "  "


def printable(text: str) -> str:
    """`text` with every character that is not printable escaped (newlines included)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def indented(text: str) -> str:
    """A traceback or stack as lines that cannot pass for a record of their own."""
    return "\n".join(INDENT + printable(line) for line in text.split("\n"))


class EscapedRecord(logging.LogRecord):
    """A record whose message and exception text are escaped when they are read."""

    def getMessage(self) -> str:
        return printable(super().getMessage())

    # Formatters write the formatted exception into `exc_text` (and read `stack_info`)
    # before printing it: both are escaped as they are stored.
    @property
    def exc_text(self) -> str | None:
        return self._exc_text

    @exc_text.setter
    def exc_text(self, value: str | None) -> None:
        self._exc_text = indented(value) if value else value

    @property
    def stack_info(self) -> str | None:
        return self._stack_info

    @stack_info.setter
    def stack_info(self, value: str | None) -> None:
        self._stack_info = indented(value) if value else value


def _escaping(previous: Any) -> Any:
    """A record factory escaping the records another factory makes, as they are made (a
    record of another class cannot take EscapedRecord's reading-time escapes)."""

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = previous(*args, **kwargs)
        try:
            record.msg, record.args = printable(record.getMessage()), None
        except Exception:  # noqa: BLE001 (a bad format is logging's to report, when emitted)
            return record
        if record.exc_info and not record.exc_text:
            record.exc_text = indented(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = indented(record.stack_info)
        return record

    factory.escapes = True  # type: ignore[attr-defined]
    return factory


def install() -> None:
    """Make every log record of this process escape what it holds (idempotent)."""
    current = logging.getLogRecordFactory()
    if current is EscapedRecord or getattr(current, "escapes", False):
        return
    logging.setLogRecordFactory(
        EscapedRecord if current is logging.LogRecord else _escaping(current)
    )
