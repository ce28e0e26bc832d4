"""Event streams under a crowd (issue 22, section 5): slots fair per user and per address,
and a stream whose client hung up gives its slot back within seconds, over a real server."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit

from devtools.threaded_server import serve_in_thread
from web import create_app
from web.serving.streams import StreamSlots, address_key


@pytest.fixture
def quiet_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    """Nothing is judged: a submission stays queued, so its stream would stay open to the
    end of `events_max_s` (five minutes here) unless something else closes it."""
    config = make_config(tmp_path, db_template, problems_root, start_workers=False)
    app = create_app(config.with_(events_max_s=300.0))
    yield app
    state(app).close()


def events(app: Flask, sid: int, auth: dict[str, str], address: str) -> object:
    client = app.test_client()
    return client.get(
        f"/api/submissions/{sid}/events",
        headers=auth,
        environ_base={"REMOTE_ADDR": address},
        buffered=False,
    )


def test_accounts_from_one_address_hold_at_most_the_address_share(quiet_app: Flask) -> None:
    """Regression: slots were counted per user only, so four accounts from one address,
    two streams each, held all 8 and every other learner got 503."""
    setup = quiet_app.test_client()
    crowd = [make_user(setup, name) for name in ("ada", "bob", "cyd", "dee")]
    sid = submit(setup, crowd[0], GOOD)
    held = [events(quiet_app, sid, who.auth, "10.0.0.1") for who in crowd[:2] for _ in range(2)]
    try:
        assert [r.status_code for r in held] == [200] * 4  # type: ignore[attr-defined]
        for who in crowd[2:]:  # each still within its own share of 2
            refused = events(quiet_app, sid, who.auth, "10.0.0.1")
            assert refused.status_code == 503  # type: ignore[attr-defined]
            assert refused.json["error"]["code"] == "streams_busy"  # type: ignore[attr-defined]
        elsewhere = make_user(setup, "eve")
        other = events(quiet_app, sid, elsewhere.auth, "10.0.0.2")
        visitor = events(quiet_app, sid, {}, "10.0.0.3")
        held += [other, visitor]
        assert other.status_code == 200 and visitor.status_code == 200  # type: ignore[attr-defined]
    finally:
        for response in held:
            response.close()  # type: ignore[attr-defined]
    assert state(quiet_app).streams.open_streams() == 0


def test_an_ipv6_client_is_counted_by_its_64_and_a_mapped_ipv4_as_ipv4() -> None:
    slots = StreamSlots(total=8, per_user=2, per_address=2)
    assert slots.acquire(None, "2001:db8:1:2::1") and slots.acquire(None, "2001:db8:1:2::ffff")
    assert slots.acquire(None, "2001:db8:1:2:abcd::9") is None  # the same /64
    assert slots.acquire(None, "2001:db8:1:3::1") is not None
    assert address_key("::ffff:10.0.0.7") == address_key("10.0.0.7") == "ip:10.0.0.7"
    assert address_key("unknown") == "ip:unknown"


def open_stream(port: int, sid: int, token: str) -> socket.socket:
    """A raw client that reads the stream's head and first line, then is dropped."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (
        f"GET /api/submissions/{sid}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
    )
    sock.sendall(head.encode())
    seen = b""
    while b"retry: 1000" not in seen:
        chunk = sock.recv(4096)
        assert chunk, seen
        seen += chunk
    assert seen.startswith(b"HTTP/1.1 200"), seen
    return sock


def test_a_stream_whose_client_hung_up_frees_its_slot_within_seconds(quiet_app: Flask) -> None:
    """Regression: a stream noticed its client was gone only when it next wrote, which was
    when the submission's status changed (up to 55 s, here never): the slot stayed taken.
    The stream now writes a comment every second, and a failed write ends it."""
    setup = quiet_app.test_client()
    ada = make_user(setup, "ada")
    sid = submit(setup, ada, GOOD)
    slots = state(quiet_app).streams
    with serve_in_thread(quiet_app, name="waitress-streams", threads=4) as server:
        sock = open_stream(server.effective_port, sid, ada.token)
        assert slots.open_streams() == 1
        sock.close()  # the learner closed the tab
        hung_up = time.monotonic()
        deadline = hung_up + 60  # generous on a loaded machine; the stream would hold 300 s
        while slots.open_streams() and time.monotonic() < deadline:
            time.sleep(0.1)
        freed_after = time.monotonic() - hung_up
        assert slots.open_streams() == 0, f"the slot is still held {freed_after:.0f} s later"
        print(f"a hung-up stream's slot was freed after {freed_after:.1f} s")
        again = open_stream(server.effective_port, sid, ada.token)
        again.close()
