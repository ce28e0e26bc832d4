"""No log line can be forged from a request (issue 22, section 2): a path with %0A, a header
with a NEL or an ANSI escape, reaching web.errors, Flask's and waitress's loggers and an
exception's message in a traceback, all come out escaped, as `judge serve` prints them."""

from __future__ import annotations

import io
import logging
import socket
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, request

from devtools.threaded_server import serve_in_thread
from web.serving import logsafe

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # web/cli.py's, for judge serve
FAKE = "INFO web.access: fake"  # the line the issue saw forged


@pytest.fixture
def log_text() -> Iterator[io.StringIO]:
    """What a handler with `judge serve`'s format writes, at its levels."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    root, web = logging.getLogger(), logging.getLogger("web")
    levels = root.level, web.level
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    web.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        web.setLevel(levels[1])


def assert_unforged(text: str, *marks: str) -> None:
    """Every mark is in the log, and none starts a line of its own (by any line break
    Python knows: LF, CR, NEL, U+2028...); no terminal escape is left."""
    for mark in marks:
        assert mark in text, text
    starts = [line for line in text.splitlines() if line.startswith("FORGED")]
    assert not starts, f"forged lines: {starts}"
    assert "\x1b" not in text and "\x85" not in text


def test_an_error_on_a_path_with_a_newline_writes_no_forged_line(
    app: Flask, log_text: io.StringIO
) -> None:
    """Regression: web.errors logged the raw path of a 500 (and the traceback the raw
    exception message), so /x%0AFORGED... wrote a fake record."""

    @app.get("/boom/<rest>")  # a plain segment: "path" would not match a newline
    def boom(rest: str) -> Any:
        raise RuntimeError(f"failed on {request.path} with {request.headers.get('X-Note')}")

    note = f"\x85FORGED-2 {FAKE}\x1b[2J"
    response = app.test_client().get(f"/boom/x%0AFORGED-1 {FAKE}", headers={"X-Note": note})
    assert response.status_code == 500
    assert_unforged(log_text.getvalue(), "unhandled RuntimeError", "FORGED-1", "FORGED-2")


def test_flasks_own_error_line_is_escaped(app: Flask, log_text: io.StringIO) -> None:
    """Flask logs "Exception on <path>" when an error handler itself fails."""
    with app.test_request_context(f"/x%0AFORGED-3 {FAKE}"):
        try:
            raise ValueError(f"bad\r\nFORGED-4 {FAKE}")
        except ValueError:
            app.log_exception(sys.exc_info())  # type: ignore[arg-type]
    assert_unforged(log_text.getvalue(), "Exception on /x", "FORGED-3", "FORGED-4")


def failing_wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    raise RuntimeError("the app failed")


def test_waitresss_line_for_a_failed_request_is_escaped(log_text: io.StringIO) -> None:
    """waitress logs "Exception while serving <path>" with the path percent-decoded."""
    logsafe.install()  # as the app factory does for its process
    target = f"/x%0AFORGED-5%20{FAKE.replace(' ', '%20')}"
    head = f"GET {target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
    answer = b""
    with (
        serve_in_thread(failing_wsgi, name="waitress-forge") as server,
        socket.create_connection(("127.0.0.1", server.effective_port), timeout=30) as sock,
    ):
        sock.sendall(head.encode())
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 500")
    assert_unforged(log_text.getvalue(), "Exception while serving /x", "FORGED-5")


def test_a_custom_record_factory_is_kept_and_escaped_too(log_text: io.StringIO) -> None:
    previous = logging.getLogRecordFactory()
    made: list[str] = []

    def counting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made.append(args[0])
        return logging.LogRecord(*args, **kwargs)

    logging.setLogRecordFactory(counting)
    try:
        logsafe.install()
        logsafe.install()  # idempotent: one wrapper, not two
        logging.getLogger("web.test").warning("line %s", f"one\nFORGED-6 {FAKE}")
    finally:
        logging.setLogRecordFactory(previous)
    assert made == ["web.test"]
    assert_unforged(log_text.getvalue(), "FORGED-6")


def test_the_escape_keeps_printable_text_and_escapes_every_line_break() -> None:
    assert logsafe.printable("GET /题目 ok") == "GET /题目 ok"
    assert logsafe.printable("a\nb\rc\x85d\u2028e\x1b") == "a\\nb\\rc\\x85d\\u2028e\\x1b"
    assert logsafe.indented("Traceback\n  File x\nFORGED") == "  Traceback\n    File x\n  FORGED"
