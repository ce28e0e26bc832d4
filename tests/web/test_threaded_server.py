"""The suite's threaded test server stops cleanly, however busy its loop is (issue 22, section 7)."""

from __future__ import annotations

import http.client
import sys
import threading
from collections.abc import Iterator

import pytest

from devtools.threaded_server import serve_in_thread

STOPS = 200


def hello(environ: dict[str, object], start_response: object) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])  # type: ignore[operator]
    return [b"hello"]


@pytest.fixture
def thread_errors() -> Iterator[list[BaseException]]:
    """Exceptions that end any thread, and switches between threads as often as possible
    (the race lies between two bytecodes of the server's loop)."""
    errors: list[BaseException] = []
    hook, interval = threading.excepthook, sys.getswitchinterval()
    threading.excepthook = lambda args: errors.append(args.exc_value or Exception())
    sys.setswitchinterval(1e-6)
    try:
        yield errors
    finally:
        sys.setswitchinterval(interval)
        threading.excepthook = hook


def test_a_server_stopped_while_its_loop_polls_busily_never_fails_in_its_thread(
    thread_errors: list[BaseException],
) -> None:
    """Regression: the e2e fixtures closed waitress's sockets while its loop was polling them,
    and on a loaded machine the loop's select() failed with EBADF in the server thread
    (`make test` errored in the teardown of tests/web/e2e/test_speed_board.py). A loop that
    never waits (timeout 0) is always between collecting descriptors and select()."""
    for _ in range(STOPS):
        with serve_in_thread(hello, threads=1, asyncore_loop_timeout=0) as server:
            # A kept-alive connection, as a browser leaves one: its channel is in the map too.
            client = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=30)
            client.request("GET", "/")
            assert client.getresponse().read() == b"hello"
        client.close()
    assert not thread_errors, f"{len(thread_errors)} server threads failed: {thread_errors[:3]!r}"


def test_a_stopped_server_leaves_no_thread_and_refuses_connections(
    thread_errors: list[BaseException],
) -> None:
    with serve_in_thread(hello, name="waitress-stop-check") as server:
        port = server.effective_port
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        client.request("GET", "/")
        assert client.getresponse().status == 200
    client.close()
    assert not [t for t in threading.enumerate() if t.name == "waitress-stop-check"]
    with pytest.raises(ConnectionRefusedError):
        http.client.HTTPConnection("127.0.0.1", port, timeout=30).request("GET", "/")
    assert not thread_errors
