"""The server `judge serve` runs (web/serving/server.py) under slow and huge requests (issue 22,
section 3): the real server on a free port in a thread, clients on raw sockets, other
client addresses taken from 127/8 (all loopback on Linux)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import state

from web import cli, create_app
from web.config import WebConfig
from web.i18n import translate
from web.serving.client_address import client_key
from web.serving.server import JudgeServer, ServerLimits, make_server

# Generous: a bound that only a server that stopped answering can pass (a loaded 2-core
# machine answers in milliseconds); the 1 s figure is bench/bench_server_attacks.py's.
ANSWER_TIMEOUT_S = 30.0
JOIN_TIMEOUT_S = 30.0
DECLARED = 100_000_000  # 100 MB, past the 256 KiB limit


@contextmanager
def serving(app: Any, limits: ServerLimits, threads: int = 4) -> Iterator[JudgeServer]:
    """The real server on 127.0.0.1 until the block ends; its loop is joined before its
    sockets close."""
    server = make_server(app, "127.0.0.1", 0, threads, limits)
    loop = threading.Thread(target=server.run, name="judge-server", daemon=True)
    loop.start()
    try:
        yield server
    finally:
        server.stop()
        loop.join(JOIN_TIMEOUT_S)
        assert not loop.is_alive(), "the server's loop did not stop"
        server.close()


@pytest.fixture
def platform(config: WebConfig) -> Iterator[Flask]:
    app = create_app(config.with_(start_workers=False))
    yield app
    state(app).close()


@pytest.fixture
def live(platform: Flask) -> Iterator[JudgeServer]:
    limits = ServerLimits(body_bytes=platform.config["MAX_CONTENT_LENGTH"])
    with serving(platform, limits) as server:
        yield server


def connect(server: JudgeServer, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", server.effective_port), timeout=ANSWER_TIMEOUT_S, source_address=(source, 0)
    )
    return sock


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One response from a raw socket: status, headers (lower-case names), body."""
    reader = sock.makefile("rb")
    status = int(reader.readline().split()[1])
    headers: dict[str, str] = {}
    while (line := reader.readline().decode("latin-1").strip()) != "":
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = reader.read(int(headers.get("content-length", "0")))
    return status, headers, body


def get_me(server: JudgeServer, source: str) -> int:
    conn = http.client.HTTPConnection(
        "127.0.0.1", server.effective_port, timeout=ANSWER_TIMEOUT_S, source_address=(source, 0)
    )
    try:
        conn.request("GET", "/api/me")
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def head(path: str, length: str | int, *extra: str) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {length}",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


def test_110_stalled_uploads_from_one_address_leave_room_for_other_clients(
    live: JudgeServer,
) -> None:
    """Regression: 105 trickling connections filled waitress's 100-connection limit and
    /api/me waited in the kernel's backlog (15 s and more) until they closed."""
    stalled = []
    try:
        for _ in range(110):
            sock = connect(live)
            # Half a submission's body, then nothing more: an upload stalled mid-way.
            sock.sendall(head("/api/submissions", 4096) + b'{"problem": "add-two", "code": "')
            stalled.append(sock)
        assert get_me(live, "127.0.0.2") == 200  # another address
        assert get_me(live, "127.0.0.1") == 200  # and the same one: its oldest stall made room
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize(
    ("path", "kind"), [("/api/submissions", "application/json"), ("/login", "text/html")]
)
def test_a_declared_body_past_the_limit_is_refused_with_413_before_it_is_sent(
    live: JudgeServer, path: str, kind: str
) -> None:
    """Regression: a declared 100 MB body was read and spooled (up to 1 GiB on disk) before
    the 256 KiB limit applied. Now the 413 comes from the head alone, in the app's shape
    and the learner's language, and the connection closes (the body is never read)."""
    with connect(live) as sock:
        sock.sendall(head(path, DECLARED, "Accept-Language: zh"))
        status, headers, body = read_response(sock)
    assert status == 413
    assert headers["connection"] == "close"
    assert headers["content-type"].startswith(kind)
    assert "content-security-policy" in headers and "x-request-id" in headers
    message = translate("err_http_413", "zh")
    if kind == "application/json":
        assert json.loads(body)["error"] == {"status": 413, "code": "too_large", "message": message}
    else:
        assert message in body.decode("utf-8")


def test_expect_100_continue_past_the_limit_is_413_not_continue(live: JudgeServer) -> None:
    """Regression: waitress answers `Expect: 100-continue` with `100 Continue` even for a
    declared length past its limit, then reads the whole body (curl asks so for any body
    over 1 MB)."""
    with connect(live) as sock:
        sock.sendall(head("/api/submissions", DECLARED, "Expect: 100-continue"))
        status, headers, _ = read_response(sock)
    assert status == 413
    assert headers["connection"] == "close"


def test_a_chunked_body_is_cut_off_at_the_limit_and_never_read_whole(
    live: JudgeServer,
) -> None:
    """A chunked body declares no length: the server stops reading it at the limit and
    answers 413, so the client cannot push more than what the kernels' buffers hold."""
    piece = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"  # 16 KiB chunks
    sent = 0
    with connect(live) as sock:
        sock.sendall(
            b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        try:
            while sent < 64_000_000:
                sock.sendall(piece)
                sent += len(piece)
        except OSError:  # the server closed the connection it stopped reading
            pass
        status, _, body = read_response(sock)
    assert status == 413
    assert json.loads(body)["error"]["code"] == "too_large"
    # The limit is 256 KiB; the rest sat in socket buffers (a few MB on loopback).
    assert sent < 16_000_000, f"{sent} bytes of chunked body were taken"


def test_the_app_refuses_a_declared_length_past_the_limit_on_any_route(
    client: FlaskClient,
) -> None:
    """The app's own rule, whatever server is in front: a route that never reads its body
    (`/api/me`) is 413 too, before any view runs."""
    response = client.get("/api/me", environ_overrides={"CONTENT_LENGTH": str(DECLARED)})
    assert response.status_code == 413
    assert response.json["error"]["code"] == "too_large"
    assert client.get("/api/me").status_code == 200


# -- the sharing rules, on a small app whose requests can be held ------------------------


class HoldingApp:
    """Answers at once, except /hold, which waits until `release` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.holding = threading.Semaphore(0)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if environ["PATH_INFO"] == "/hold":
            self.holding.release()
            self.release.wait(ANSWER_TIMEOUT_S)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]


def get(sock: socket.socket, path: str = "/") -> int:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode("ascii"))
    return read_response(sock)[0]


def closed_by_server(sock: socket.socket) -> bool:
    """True when the server has closed it (EOF or reset waits to be read); never blocks."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def test_a_full_address_makes_room_by_closing_its_longest_idle_connection() -> None:
    """Idle means unheard from: the first of three connections used in turn is the one
    closed, however late the server's threads stamp the answers they wrote."""
    with (
        serving(HoldingApp(), ServerLimits(connections=50, per_address=3)) as server,
        ExitStack() as sockets,
    ):
        kept_alive = [sockets.enter_context(connect(server, "127.0.0.3")) for _ in range(3)]
        for sock in kept_alive:
            assert get(sock) == 200  # answered, then idle on keep-alive
        with connect(server, "127.0.0.3") as newcomer:
            assert get(newcomer) == 200
        assert [closed_by_server(sock) for sock in kept_alive] == [True, False, False]


def test_a_connection_being_answered_is_never_closed_and_past_them_a_503_says_so() -> None:
    app = HoldingApp()
    with serving(app, ServerLimits(connections=50, per_address=2)) as server:
        held = [connect(server, "127.0.0.4") for _ in range(2)]
        for sock in held:
            sock.sendall(b"GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        for _ in held:
            assert app.holding.acquire(timeout=ANSWER_TIMEOUT_S)  # both in the app now
        with connect(server, "127.0.0.4") as refused:
            status, headers, body = read_response(refused)
        assert status == 503 and headers["retry-after"] == "5"
        for lang in ("en", "zh"):
            assert translate("err_limits_unavailable", lang).format(retry=5) in body.decode()
        with connect(server, "127.0.0.5") as other:
            assert get(other) == 200  # another address is not refused
        app.release.set()
        assert [read_response(sock)[0] for sock in held] == [200, 200]
        for sock in held:
            sock.close()


def test_a_full_server_makes_room_from_the_address_holding_the_most() -> None:
    with serving(HoldingApp(), ServerLimits(connections=6, per_address=4)) as server:
        heavy = [connect(server, "127.0.0.6") for _ in range(4)]
        light = [connect(server, "127.0.0.7") for _ in range(2)]
        for sock in heavy + light:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # heads never finished
        with connect(server, "127.0.0.8") as newcomer:
            assert get(newcomer) == 200
        assert sum(closed_by_server(sock) for sock in heavy) == 1
        assert not any(closed_by_server(sock) for sock in light)
        for sock in heavy + light:
            sock.close()


def test_an_ipv6_client_is_counted_by_its_64_and_a_mapped_ipv4_one_by_its_address() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::2")
    assert client_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") == "192.0.2.7"


@pytest.mark.parametrize(
    "flags",
    [
        ["--connections-per-address", "0"],
        ["--max-connections", "10", "--connections-per-address", "11"],
    ],
)
def test_serve_refuses_connection_limits_that_cannot_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    assert cli.serve(["--instance", str(tmp_path / "instance"), *flags]) == cli.EXIT_ERROR
    assert "--connections-per-address" in capsys.readouterr().err
