"""Serving stacks under slow and huge requests (issue 22, section 3): the platform's app
behind each stack, in a child process, attacked from this one over loopback.

- `/api/me` from another address (127.0.0.2) and from the attackers' own (127.0.0.1)
  while N uploads from 127.0.0.1 trickle one byte a second (N = 110, then 1100);
- a declared 100 MB body: how long until an answer arrives, nothing of the body sent;
- a chunked body: how many bytes the server takes before it refuses (of 100 MB offered).

Stacks: `judge` (web/serving/server.py, what `judge serve` runs), `waitress` (waitress's defaults,
what `judge serve` ran before), `waitress-tuned` (waitress settings alone: 1000
connections, poll, the body limit), and `gunicorn`/`cheroot` where importable (for
example `pip install --target DIR gunicorn cheroot` and PYTHONPATH=DIR).

    python bench/bench_server_attacks.py [--stacks judge,waitress] [--slow 110,1100]
                                         [--spread 1100,20]
"""

from __future__ import annotations

import argparse
import http.client
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

STACKS = ("judge", "waitress", "waitress-tuned", "nginx", "gunicorn", "cheroot")
THREADS = 16
LIMIT = 256 * 1024
WAIT_S = 5.0  # what a client waits before it counts as refused
DECLARED = 100_000_000
HEAD = (
    "POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    "Content-Length: {length}\r\n\r\n"
)


# -- the child: one stack serving the app -----------------------------------------------


def build_app(folder: Path) -> Any:
    from web import create_app
    from web.config import WebConfig, sqlite_url

    return create_app(
        WebConfig(
            database_url=sqlite_url(folder / "judge.sqlite3"),
            problems_dir=REPO / "problems",
            secret_key="bench",
            judge_seed=1,
            start_workers=False,
            judge_backend="unsafe-local",
        )
    )


def serve(stack: str, port: int, folder: Path) -> None:
    app = build_app(folder)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if stack == "judge":
        from web.serving.server import ServerLimits, make_server

        make_server(app, "127.0.0.1", port, THREADS, ServerLimits(body_bytes=LIMIT)).run()
    elif stack.startswith("waitress"):
        import waitress

        tuned: dict[str, Any] = {}
        if stack == "waitress-tuned":
            tuned = {
                "connection_limit": 1000,
                "asyncore_use_poll": True,
                "max_request_body_size": LIMIT + 1,
                "channel_timeout": 60,
            }
        waitress.serve(app, host="127.0.0.1", port=port, threads=THREADS, **tuned)
    elif stack == "nginx":
        import waitress

        inner = free_port()
        proxy = subprocess.Popen(["nginx", "-c", str(nginx_conf(folder, port, inner))])
        signal.signal(signal.SIGTERM, lambda *_: (proxy.terminate(), proxy.wait(), os._exit(0)))
        waitress.serve(app, host="127.0.0.1", port=inner, threads=THREADS)
    elif stack == "gunicorn":
        from gunicorn.app.base import BaseApplication

        class Gunicorn(BaseApplication):  # type: ignore[misc]
            def load_config(self) -> None:
                settings = {"bind": f"127.0.0.1:{port}", "workers": 1, "worker_class": "gthread"}
                for key, value in (settings | {"threads": THREADS}).items():
                    self.cfg.set(key, value)

            def load(self) -> Any:
                return app

        Gunicorn().run()
    elif stack == "cheroot":
        from cheroot.wsgi import Server

        server = Server(("127.0.0.1", port), app, numthreads=THREADS)
        server.max_request_body_size = LIMIT
        server.start()


NGINX = """
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    limit_conn_zone $binary_remote_addr zone=per_address:1m;
    server {{
        listen 127.0.0.1:{port};
        limit_conn per_address 64;
        client_max_body_size {limit};
        client_header_timeout 60s;
        client_body_timeout 60s;
        location / {{ proxy_pass http://127.0.0.1:{inner}; }}
    }}
}}
"""


def nginx_conf(folder: Path, port: int, inner: int) -> Path:
    """A front proxy as one would put before waitress: a per-address connection cap and
    the body limit, buffering requests before they reach waitress."""
    folder.chmod(0o755)  # nginx's workers (another user under root) keep bodies there
    path = folder / "nginx.conf"
    path.write_text(NGINX.format(folder=folder, port=port, inner=inner, limit=LIMIT))
    return path


# -- the parent: the attacks ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def available(stack: str) -> bool:
    if stack == "nginx":
        return shutil.which("nginx") is not None
    module = {"gunicorn": "gunicorn", "cheroot": "cheroot"}.get(stack)
    if module is None:
        return True
    import importlib.util

    return importlib.util.find_spec(module) is not None


@contextmanager
def running(stack: str) -> Iterator[int]:
    port, folder = free_port(), Path(tempfile.mkdtemp(prefix="bench-server-"))
    log = folder / "server.log"
    with log.open("wb") as errors:
        argv = ["--serve", stack, "--port", str(port), "--folder", str(folder)]
        child = subprocess.Popen([sys.executable, __file__, *argv], stderr=errors)
    try:
        deadline = time.monotonic() + 120
        while me_ms(port) is None:
            if time.monotonic() > deadline or child.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{stack} did not start:\n{tail}")
            time.sleep(0.2)
        yield port
    finally:
        child.terminate()
        with suppress(subprocess.TimeoutExpired):
            child.wait(10)
        child.kill()
        child.wait()
        shutil.rmtree(folder, ignore_errors=True)


def me_ms(port: int, source: str = "127.0.0.2", timeout: float = WAIT_S) -> float | None:
    """Milliseconds for one GET /api/me on a new connection; None if no 200 in `timeout`."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        conn.request("GET", "/api/me")
        response = conn.getresponse()
        response.read()
        ok = response.status == 200
    except OSError:
        ok = False
    finally:
        conn.close()
    return (time.perf_counter() - started) * 1000 if ok else None


def worst_of(port: int, source: str, tries: int = 5) -> float | None:
    """The slowest of `tries` requests; None as soon as one gets no answer."""
    worst = 0.0
    for _ in range(tries):
        ms = me_ms(port, source)
        if ms is None:
            return None
        worst = max(worst, ms)
    return worst


@contextmanager
def trickling(port: int, count: int, sources: int = 1) -> Iterator[Callable[[], int]]:
    """`count` uploads from 127.0.0.1 (or spread over `sources` addresses 127.0.1.x), each
    sending its head once connected (connects go on in the background, as an attacker's
    retries would, however small the server's backlog), then one more body byte a second.
    Yields how many have sent their head."""
    head = HEAD.format(length=LIMIT // 2).encode() + b'{"code": "'
    socks = []
    for n in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.1" if sources == 1 else f"127.0.1.{n % sources + 1}", 0))
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        socks.append(sock)
    started: set[socket.socket] = set()
    stop = threading.Event()

    def trickle() -> None:
        while True:
            for sock in socks:
                with suppress(OSError):  # not connected yet, or closed by the server
                    sock.send(b"x" if sock in started else head)
                    started.add(sock)
            if stop.wait(1.0):
                return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        yield lambda: len(started)
    finally:
        stop.set()
        thread.join()
        for sock in socks:
            sock.close()


def declared_ms(port: int, expect: bool = False) -> tuple[float | None, str]:
    """Milliseconds until an answer to a declared 100 MB body (none of it sent), and its
    status (100: the server asks for the body)."""
    started = time.perf_counter()
    head = HEAD.format(length=DECLARED).encode()
    if expect:
        head = head.replace(b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
        sock.sendall(head)
        try:
            first = sock.recv(64)
        except OSError:
            return None, "no answer"
    status = first.split(b" ")[1].decode() if first.startswith(b"HTTP/") else "closed"
    return (time.perf_counter() - started) * 1000, status


def chunked_taken(port: int, offered: int = DECLARED) -> tuple[int, str]:
    """Bytes of a chunked body sent before the server answered or closed, and its status."""
    piece = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
        sock.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.sendall(b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        with suppress(OSError):  # a server that stops reading may close before we do
            while sent < offered and not select.select([sock], [], [], 0)[0]:
                sock.sendall(piece)
                sent += len(piece)
            if sent >= offered:
                sock.sendall(b"0\r\n\r\n")
        try:
            first = sock.recv(64)  # what it answered before closing is still there to read
        except OSError:
            first = b""
    status = first.split(b" ")[1].decode() if first.startswith(b"HTTP/") else "closed"
    return sent, status


def cell(ms: float | None) -> str:
    return f"> {WAIT_S:.0f} s (refused)" if ms is None else f"{ms:.0f} ms"


def measure(stack: str, slow: list[int], spread: tuple[int, int]) -> list[str]:
    with running(stack) as port:
        idle = [me_ms(port) for _ in range(20)]
        row = [stack, f"{statistics.median(t for t in idle if t is not None):.1f} ms"]
        for count in slow:
            with trickling(port, count) as connected:
                time.sleep(3)  # every connection the kernel or the server will take is in
                other, same = worst_of(port, "127.0.0.2"), worst_of(port, "127.0.0.1")
                got = connected()
            note = "" if got == count else f" (only {got} connected)"
            row.append(f"{cell(other)} / {cell(same)}{note}")
            wait_until(lambda: me_ms(port) is not None)
        with trickling(port, *spread):
            time.sleep(3)
            row.append(cell(worst_of(port, "127.0.0.2")))
        wait_until(lambda: me_ms(port) is not None)
        for expect in (False, True):
            ms, status = declared_ms(port, expect)
            row.append(f"{status} after {cell(ms)}" if ms is not None else "no answer")
        taken, status = chunked_taken(port)
        row.append(f"{status} after {taken / 1e6:.1f} MB")
    return row


def wait_until(ready: Callable[[], bool], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not ready() and time.monotonic() < deadline:
        time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stacks", default=",".join(STACKS))
    parser.add_argument("--slow", default="110,1100", help="trickling uploads per round")
    parser.add_argument("--spread", default="1100,20", help="uploads,addresses of a last round")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.folder)
        return
    slow = [int(n) for n in args.slow.split(",")]
    uploads, addresses = (int(n) for n in args.spread.split(","))
    spread = (uploads, addresses)
    header = ["stack", "/api/me idle p50"]
    header += [f"/api/me worst of 5, {n} slow (other / same address)" for n in slow]
    header += [f"{spread[0]} slow from {spread[1]} addresses (another)"]
    header += ["declared 100 MB body", "the same with Expect: 100-continue"]
    header += ["chunked body (of 100 MB offered)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for stack in args.stacks.split(","):
        if not available(stack):
            print(f"| {stack} | not installed |")
            continue
        print("| " + " | ".join(measure(stack, slow, spread)) + " |", flush=True)


if __name__ == "__main__":
    main()
