"""`judge submit` against a real waitress server, and `judge serve`'s start-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from problem_factory import GOOD, WRONG
from web_helpers import make_user, wait_judged

from devtools.threaded_server import serve_in_thread, url
from web import cli


@pytest.fixture
def server(app: Flask) -> Iterator[str]:
    with serve_in_thread(app, threads=4) as http:
        yield url(http)


def write(tmp_path: Path, text: str | bytes, name: str = "solution.py") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_submit_waits_for_an_accepted_verdict(
    app: Flask, server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ada = make_user(app.test_client(), "ada")
    argv = ["add-two", str(write(tmp_path, GOOD)), "--server", server, "--token", ada.token]
    assert cli.submit(argv) == cli.EXIT_AC
    assert "add-two: AC (5/5 cases, 100 points)" in capsys.readouterr().out


def test_submit_logs_in_with_a_password_and_reports_a_wrong_answer(
    app: Flask,
    server: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_user(app.test_client(), "ada")
    monkeypatch.setenv("JUDGE_PASSWORD", "correct-horse")
    argv = ["add-two", str(write(tmp_path, WRONG)), "--server", server, "--user", "ada"]
    assert cli.submit(argv) == cli.EXIT_REJECTED
    out = capsys.readouterr().out
    assert ": WA" in out
    assert "small [public]: WA" in out


def test_submit_explains_server_side_errors(
    app: Flask, server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ada = make_user(app.test_client(), "ada")
    path = str(write(tmp_path, GOOD))
    assert cli.submit(["nope", path, "--server", server, "--token", ada.token]) == cli.EXIT_ERROR
    assert "unknown problem 'nope' (HTTP 404 unknown_problem)" in capsys.readouterr().err
    assert cli.submit(["add-two", path, "--server", server, "--token", "jdg_bad"]) == 2
    assert "HTTP 401 bad_token" in capsys.readouterr().err


def test_submit_explains_local_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = str(write(tmp_path, GOOD))
    assert cli.submit(["add-two", good, "--token", "t"]) == cli.EXIT_ERROR
    assert "--server URL is required" in capsys.readouterr().err
    missing = str(tmp_path / "missing.py")
    assert cli.submit(["add-two", missing, "--server", "http://x", "--token", "t"]) == 2
    assert "cannot read" in capsys.readouterr().err
    latin1 = str(write(tmp_path, b"# caf\xe9\n", "latin1.py"))
    assert cli.submit(["add-two", latin1, "--server", "http://x", "--token", "t"]) == 2
    assert "is not UTF-8" in capsys.readouterr().err
    unreachable = ["add-two", good, "--server", "http://127.0.0.1:9", "--token", "t"]
    assert cli.submit(unreachable) == cli.EXIT_ERROR
    assert "cannot reach" in capsys.readouterr().err


def test_main_dispatches_and_explains_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == cli.EXIT_ERROR
    assert "usage" in capsys.readouterr().err


def test_serve_migrates_and_serves_with_waitress(tmp_path: Path, problems_root: Path) -> None:
    import json
    import signal
    import subprocess
    import sys
    import urllib.request

    argv = [sys.executable, "-m", "web.cli", "serve", "--port", "0", "--workers", "1"]
    argv += ["--instance", str(tmp_path / "instance"), "--problems", str(problems_root)]
    argv += ["--unsafe-local-judge"]
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            first = process.stdout.readline()  # type: ignore[union-attr]
            assert first.startswith("serving on http://127.0.0.1:"), first
            base = first.split()[-1].rstrip("/")
            with urllib.request.urlopen(base + "/api/problems", timeout=10) as response:
                assert response.headers["Server"] == "judge"  # waitress, not the dev server
                slugs = [p["slug"] for p in json.load(response)["problems"]]
            assert slugs == ["add-two", "add-more"]
            assert (tmp_path / "instance" / "judge.sqlite3").is_file()
        finally:
            process.send_signal(signal.SIGINT)
            try:
                code = process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()  # else the with block's own wait() never returns
                raise
            assert code == 0


def test_event_stream_over_waitress_delivers_the_verdict(app: Flask, server: str) -> None:
    import urllib.request

    ada = make_user(app.test_client(), "ada")
    body = {"problem": "add-two", "code": GOOD}
    created = app.test_client().post("/api/submissions", json=body, headers=ada.auth).json
    request = urllib.request.Request(server + created["events_url"], headers=ada.auth)
    with urllib.request.urlopen(request, timeout=20) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = [line.decode() for line in stream]
    assert "event: done\n" in lines
    assert any('"verdict": "AC"' in line for line in lines if line.startswith("data:"))


def test_concurrent_users_over_http_are_all_judged_once(app: Flask, server: str) -> None:
    """Ten clients at once against waitress and SQLite: no lost or doubled verdicts."""
    from concurrent.futures import ThreadPoolExecutor

    from web_helpers import state

    from web.store.models import Submission

    def one_user(n: int) -> list[int]:
        client = cli.ApiClient(server)
        name = f"user{n:02d}"
        client.call("POST", "/api/register", {"username": name, "password": "correct-horse"})
        body = {"username": name, "password": "correct-horse"}
        client.token = str(client.call("POST", "/api/token", body)["token"])
        code = WRONG if n % 2 else GOOD
        # Three different codes: an identical resubmission would be refused as a repeat.
        bodies = [{"problem": "add-two", "code": f"{code}# try {i}\n"} for i in range(3)]
        return [int(client.call("POST", "/api/submissions", body)["id"]) for body in bodies]

    with ThreadPoolExecutor(10) as pool:
        ids = [sid for batch in pool.map(one_user, range(10)) for sid in batch]
    wait_judged(app)
    with state(app).sessions() as db:
        rows = db.query(Submission).all()
    assert sorted(ids) == sorted(r.id for r in rows)
    assert all(r.status == "done" and r.attempts == 1 for r in rows)
    board = cli.ApiClient(server).call("GET", "/api/leaderboard")
    assert [e["points"] for e in board["entries"]] == [100] * 5 + [0] * 5
