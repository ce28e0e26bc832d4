"""A real waitress server on a thread of this process (a test's, a benchmark's), stopped
without racing its loop.

waitress's own `server.run()` polls until its socket map is empty, so the usual way to stop
it from another thread is `server.close()`: the sockets are closed while the loop may be
between collecting their descriptors and calling select(), which then fails with
`OSError: [Errno 9] Bad file descriptor` in the server thread (pytest reports it as an
error in the teardown). Here the loop runs one poll at a time and checks a stop flag; the
stop wakes it through waitress's trigger, joins it, and only then closes the sockets.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from waitress import wasyncore  # type: ignore[import-untyped]
from waitress.server import BaseWSGIServer, create_server  # type: ignore[import-untyped]

JOIN_TIMEOUT_S = 30.0


def _poll_until(server: BaseWSGIServer, stop: threading.Event) -> None:
    while not stop.is_set():
        wasyncore.loop(
            timeout=server.adj.asyncore_loop_timeout,
            map=server._map,
            use_poll=server.adj.asyncore_use_poll,
            count=1,
        )


@contextmanager
def serve_in_thread(
    app: Any, *, name: str = "waitress", threads: int = 4, **adjustments: Any
) -> Iterator[BaseWSGIServer]:
    """Serve `app` on 127.0.0.1 (a free port: `server.effective_port`) until the block ends.

    `adjustments` are waitress's (`asyncore_loop_timeout=0` makes the loop poll busily)."""
    server = create_server(app, host="127.0.0.1", port=0, threads=threads, **adjustments)
    assert isinstance(server, BaseWSGIServer), "one listening address, one server"
    stop = threading.Event()
    thread = threading.Thread(target=_poll_until, args=(server, stop), name=name, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        # Requests in flight finish while the loop still flushes their output; then the loop
        # exits at its next turn (the trigger wakes a select() waiting out its timeout), and
        # only a stopped loop's sockets are closed.
        server.task_dispatcher.shutdown()
        stop.set()
        server.pull_trigger()
        thread.join(JOIN_TIMEOUT_S)
        if thread.is_alive():
            raise RuntimeError(f"the {name} server's loop did not stop in {JOIN_TIMEOUT_S} s")
        wasyncore.close_all(server._map)


def url(server: BaseWSGIServer) -> str:
    return f"http://127.0.0.1:{server.effective_port}"
