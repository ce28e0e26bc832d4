"""The HTTP server `judge serve` runs: waitress, with connections shared fairly between
client addresses and request bodies past the limit refused before they are read.

waitress reads every request (head and body) on its one event-loop thread and hands only
complete requests to its worker threads, so a slow client costs a connection, never a
thread. What it lacks against a hostile crowd, and what this module adds:

- A cap on connections per client address (an IPv6 client's /64), and room made for a
  newcomer instead of a refusal: when its address, or the whole server, holds its share,
  the longest-idle connection of that address (of the address holding the most, when the
  server is full: idle since its client last sent anything) is closed, else the one whose
  request has been arriving the longest.
  A connection whose request is being answered is never closed; only when every
  connection of the address is being answered is the newcomer refused with a 503. So one
  address trickling 110 (or thousands of) requests cannot keep another client out, and the
  same address's next real request is served too. (waitress alone stops accepting at its
  `connection_limit` of 100 and the rest wait in the kernel's backlog.)
- A body whose declared length is past the limit is answered at once, from its head
  alone, by the app's own 413 (its error shape and the learner's language), and the
  connection is closed unread; a chunked body is cut off when it reaches the limit. Also
  with `Expect: 100-continue`, which waitress would otherwise answer with
  `100 Continue` and then read the whole body.

Not covered: many addresses (each gets its share; beyond `connections` in all, the
heaviest address's connections make room); a reverse proxy in front, where every client
is the proxy's address (give it the per-client limits and `--connections-per-address`
a share as large as `--max-connections`).
"""

from __future__ import annotations

import io
import logging
import resource
import socket
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from waitress import wasyncore  # type: ignore[import-untyped]
from waitress.adjustments import Adjustments  # type: ignore[import-untyped]
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.server import TcpWSGIServer  # type: ignore[import-untyped]
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask  # type: ignore[import-untyped]
from waitress.utilities import RequestEntityTooLarge  # type: ignore[import-untyped]

from web.i18n import translate
from web.serving.client_address import client_key

log = logging.getLogger(__name__)

BUSY_RETRY_S = 5
LOG_EVERY_S = 60.0
DEFAULT_CONNECTIONS = 1000
DEFAULT_PER_ADDRESS = 64
# Descriptors the process needs beside its connections (database, judge pools, logs).
SPARE_FDS = 256


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """What one server process holds at most; `judge serve` flags set the first two."""

    connections: int = DEFAULT_CONNECTIONS
    per_address: int = DEFAULT_PER_ADDRESS
    body_bytes: int = 256 * 1024  # the app's MAX_CONTENT_LENGTH (WebConfig.max_request_bytes)
    # Browsers send a few KiB; every connection may hold this much until its head ends.
    header_bytes: int = 64 * 1024
    # A connection with nothing arriving or leaving for this long is closed.
    idle_s: int = 60

    def __post_init__(self) -> None:
        if self.connections < 1 or not 1 <= self.per_address <= self.connections:
            raise ValueError(
                "--max-connections must be at least 1 and --connections-per-address "
                f"between 1 and it, not {self.connections} and {self.per_address}"
            )


class _TooLargeTask(WSGITask):  # type: ignore[misc]
    """A request refused for its body before it was read: the app answers it (its 413,
    raised from the declared length before any view runs, `web.app`) with no body to read
    and, for a cut-off chunked body, the length it had reached; then the connection closes,
    since the rest of the body was never read."""

    def get_environment(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environment()
        received = self.request.body_bytes_received
        environ["CONTENT_LENGTH"] = str(max(self.request.content_length, received))
        environ["wsgi.input"] = io.BytesIO()
        return environ

    def execute(self) -> None:
        self.set_close_on_finish()
        super().execute()


def _error_task(channel: HTTPChannel, request: Any) -> Any:
    if isinstance(request.error, RequestEntityTooLarge):
        return _TooLargeTask(channel, request)
    return ErrorTask(channel, request)  # a malformed request: waitress's own 400s


class _Channel(HTTPChannel):  # type: ignore[misc]
    """waitress's connection, counted in its address's share and able to say whether it may
    be closed to make room (not while its request is being answered)."""

    error_task_class = staticmethod(_error_task)

    def __init__(self, server: _Server, sock: socket.socket, addr: Any, adj: Any, map: Any) -> None:
        self.shares = server.shares
        self.key = client_key(str(addr[0]))
        self.request_began = time.monotonic()  # a silent new connection counts from here
        self.last_heard = self.request_began
        super().__init__(server, sock, addr, adj, map=map)

    def add_channel(self, map: Any = None) -> None:
        super().add_channel(map)
        self.shares.add(self)

    def del_channel(self, map: Any = None) -> None:
        self.shares.remove(self)
        super().del_channel(map)

    def received(self, data: bytes) -> bool:
        if data:
            self.last_heard = time.monotonic()
            if self.request is None:
                self.request_began = self.last_heard
        return bool(super().received(data))

    def send_continue(self) -> None:
        if self.request is not None and self.request.error is not None:
            return  # refused from its head: the answer is the error, not "send the body"
        super().send_continue()

    def eviction_rank(self) -> tuple[int, float] | None:
        """None while a request is answered or output waits; else idle connections before
        ones still receiving a request, the longest waiting first."""
        if self.requests or self.total_outbufs_len or self.will_close:
            return None
        if self.request is None:
            # Idle since the client last sent anything, as the event loop read it: waitress's
            # last_activity is stamped by the thread that wrote the answer, after the send,
            # so on a busy machine an answer written first could be stamped last, and the
            # connection used last closed first.
            return (0, self.last_heard)
        return (1, self.request_began)


class _Shares:
    """The open connections by client key; only the event-loop thread changes them."""

    def __init__(self, limits: ServerLimits) -> None:
        self.limits = limits
        self.by_key: dict[str, set[_Channel]] = defaultdict(set)
        self.total = 0
        self._said: dict[str, float] = {}

    def add(self, channel: _Channel) -> None:
        held = self.by_key[channel.key]
        if channel not in held:
            held.add(channel)
            self.total += 1

    def remove(self, channel: _Channel) -> None:
        held = self.by_key.get(channel.key)
        if held is not None and channel in held:
            held.discard(channel)
            self.total -= 1
            if not held:
                del self.by_key[channel.key]

    def make_room(self, key: str) -> bool:
        """Close a connection if `key`'s share or the server is full; False if none may go."""
        if len(self.by_key.get(key, ())) >= self.limits.per_address and not self._evict([key]):
            return False
        if self.total >= self.limits.connections:
            heaviest = sorted(self.by_key, key=lambda k: len(self.by_key[k]), reverse=True)
            return self._evict(heaviest)
        return True

    def _evict(self, keys: list[str]) -> bool:
        for key in keys:
            ranked = [
                (rank, channel)
                for channel in self.by_key.get(key, ())
                if (rank := channel.eviction_rank()) is not None
            ]
            if ranked:
                victim = min(ranked, key=lambda pair: pair[0])[1]
                self.say_once(key, "closing its longest-idle or slowest connection to make room")
                victim.handle_close()
                return True
        return False

    def say_once(self, key: str, what: str) -> None:
        """One warning a minute per address: an attack makes room thousands of times."""
        now = time.monotonic()
        if now - self._said.get(key, -LOG_EVERY_S) >= LOG_EVERY_S:
            if len(self._said) > 10_000:
                self._said.clear()
            self._said[key] = now
            log.warning("client %s: %s (said once a minute per client)", key, what)


def _busy_response() -> bytes:
    lines = [
        translate("err_limits_unavailable", lang).format(retry=BUSY_RETRY_S)
        for lang in ("en", "zh")
    ]
    body = ("\n".join(lines) + "\n").encode("utf-8")
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Retry-After: {BUSY_RETRY_S}\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


class _Server(TcpWSGIServer):  # type: ignore[misc]
    """One listening socket; a connection it accepts is made a channel once room is made."""

    def __init__(self, app: Any, shares: _Shares, **kw: Any) -> None:
        self.shares = shares
        super().__init__(app, **kw)

    @staticmethod
    def channel_class(server: _Server, conn: socket.socket, addr: Any, adj: Any, map: Any) -> None:
        key = client_key(str(addr[0]))
        if server.shares.make_room(key):
            _Channel(server, conn, addr, adj, map)
        else:
            server.shares.say_once(key, "refused: every one of its connections is busy")
            _refuse(conn)


def _refuse(conn: socket.socket) -> None:
    """A short 503 and close; what the client already sent is read first, so that closing
    does not reset the connection before the answer is read."""
    conn.setblocking(False)
    try:
        conn.recv(65536)
    except OSError:
        pass
    try:
        conn.send(_busy_response())
    except OSError:
        pass
    conn.close()


class JudgeServer:
    """waitress's event loop over one or more listening sockets, stoppable from any thread:
    `run()` until `stop()`, then `close()` (the loop is never polling sockets being closed)."""

    def __init__(
        self,
        servers: list[_Server],
        dispatcher: ThreadedTaskDispatcher,
        socket_map: dict[int, Any],
        adj: Any,
    ) -> None:
        self.servers = servers
        self.dispatcher = dispatcher
        self.map = socket_map
        self.adj = adj
        self._stopping = threading.Event()

    @property
    def effective_port(self) -> int:
        return int(self.servers[0].effective_port)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [(s.effective_host, int(s.effective_port)) for s in self.servers]

    def run(self) -> None:
        """Serve until stop() is called (from another thread or a signal handler)."""
        while self.map and not self._stopping.is_set():
            wasyncore.loop(
                timeout=self.adj.asyncore_loop_timeout, map=self.map, use_poll=True, count=1
            )

    def stop(self) -> None:
        self._stopping.set()
        self.servers[0].pull_trigger()  # wakes a poll waiting out its timeout

    def close(self) -> None:
        """After run() returned: end the HTTP threads, then close every socket."""
        self.dispatcher.shutdown()
        wasyncore.close_all(self.map)


def make_server(app: Any, host: str, port: int, threads: int, limits: ServerLimits) -> JudgeServer:
    """Listen on host:port (every address `host` names) and serve `app` within `limits`."""
    connections = _fit_descriptors(limits.connections)
    if connections != limits.connections:
        limits = ServerLimits(
            connections,
            min(limits.per_address, connections),
            limits.body_bytes,
            limits.header_bytes,
            limits.idle_s,
        )
    adj = Adjustments(
        host=host,
        port=port,
        threads=threads,
        ident="judge",
        # waitress's own limit only as a backstop: `_Shares` keeps the count below it.
        connection_limit=limits.connections + 16,
        # poll(), not select(): select() cannot watch a descriptor past 1023.
        asyncore_use_poll=True,
        # waitress refuses a declared length >= this one, so one more than the app's limit.
        max_request_body_size=limits.body_bytes + 1,
        max_request_header_size=limits.header_bytes,
        channel_timeout=limits.idle_s,
        cleanup_interval=min(10, limits.idle_s),
    )
    socket_map: dict[int, Any] = {}
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    shares = _Shares(limits)
    servers = [
        _Server(app, shares, map=socket_map, dispatcher=dispatcher, adj=adj, sockinfo=info)
        for info in adj.listen
    ]
    return JudgeServer(servers, dispatcher, socket_map, adj)


def _fit_descriptors(connections: int) -> int:
    """Raise the soft descriptor limit toward what `connections` needs; fewer connections
    if the hard limit is lower (accept() failing with EMFILE would refuse everyone)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + SPARE_FDS
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < wanted:
        fitted = max(1, soft - SPARE_FDS)
        log.warning("only %d descriptors: serving at most %d connections", soft, fitted)
        return fitted
    return connections
