"""`python -m devtools.local_cluster`: the whole scaled-out platform on this machine (Redis,
PostgreSQL, two `judge worker` processes, `judge serve`), driven as a person would, from
the command line and over HTTP, judging with the unsafe-local backend on the test
problems."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from problem_factory import GOOD

from devtools.local_services import PostgresServer, exited, free_port, missing_binaries

pytestmark = pytest.mark.slow
JUDGED_WITHIN_S = 180.0


def cluster(folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "devtools.local_cluster", *args, "--folder", str(folder)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=400)


def pids(folder: Path) -> dict[str, int]:
    return {p.stem: int(p.read_text()) for p in sorted((folder / "pids").glob("*.pid"))}


def call(base: str, method: str, path: str, body: Any = None, token: str = "") -> Any:
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Bearer {token}"} if token else {}),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture
def env(problems_root: Path) -> dict[str, str]:
    missing = missing_binaries()
    if missing:
        pytest.skip(f"no local Redis or PostgreSQL on this machine: missing {', '.join(missing)}")
    return dict(
        os.environ,
        JUDGE_BACKEND="unsafe-local",  # loopback only; the sandbox has tests of its own
        JUDGE_PROBLEMS=str(problems_root),
        JUDGE_WORKERS="1",  # judging threads per worker: two workers judge two at once
    )


@pytest.fixture
def folder(tmp_path: Path, env: dict[str, str]) -> Iterator[Path]:
    folder = tmp_path / "cluster"
    yield folder
    cluster(folder, "stop", env=env)  # whatever a failed assertion left running
    PostgresServer(folder / "postgres").destroy()  # its data may lie outside tmp_path


def test_the_local_cluster_judges_a_submission_over_http_and_stops_cleanly(
    folder: Path, env: dict[str, str]
) -> None:
    port = free_port()
    started = cluster(folder, "start", "--port", str(port), env=env)
    assert started.returncode == 0, started.stderr
    base = f"http://127.0.0.1:{port}"
    assert f"{base}/" in started.stdout
    running = pids(folder)
    assert sorted(running) == ["web", "worker-1", "worker-2"]

    call(base, "POST", "/api/register", {"username": "ada", "password": "correct-horse"})
    token = call(base, "POST", "/api/token", {"username": "ada", "password": "correct-horse"})
    token = token["token"]
    created = call(base, "POST", "/api/submissions", {"problem": "add-two", "code": GOOD}, token)
    deadline = time.monotonic() + JUDGED_WITHIN_S
    while True:  # polled: judged by a worker process, through Redis and PostgreSQL
        view = call(base, "GET", f"/api/submissions/{created['id']}", token=token)
        if view["verdict"] is not None or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (view["verdict"], view["points"]) == ("AC", 100), view
    board = call(base, "GET", "/api/leaderboard")
    assert [(e["user"], e["points"]) for e in board["entries"]] == [("ada", 100)]

    status = cluster(folder, "status", env=env)
    assert status.returncode == 0, status.stdout
    assert status.stdout.count("running") == 5

    # A worker that died is started again by the next start; what runs is left alone.
    os.kill(running["worker-1"], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not exited(running["worker-1"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cluster(folder, "status", env=env).returncode == 1
    again = cluster(folder, "start", "--port", str(port), env=env)
    assert again.returncode == 0, again.stderr
    now = pids(folder)
    assert now["worker-1"] != running["worker-1"]
    assert (now["web"], now["worker-2"]) == (running["web"], running["worker-2"])

    stopped = cluster(folder, "stop", env=env)
    assert stopped.returncode == 0, stopped.stderr
    assert all(exited(pid) for pid in now.values())
    assert not PostgresServer(folder / "postgres").running()
    with pytest.raises(urllib.error.URLError):
        call(base, "GET", "/api/problems")
    assert cluster(folder, "status", env=env).returncode == 1
    assert cluster(folder, "stop", env=env).returncode == 0  # stopping twice is fine


def test_a_cluster_that_cannot_start_its_web_server_says_why_and_leaves_nothing_running(
    folder: Path, env: dict[str, str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        failed = cluster(folder, "start", "--port", str(port), "--timeout", "120", env=env)
    assert failed.returncode == 1
    assert "web" in failed.stderr and "web.log" in failed.stderr
    status = cluster(folder, "status", env=env)
    assert "running" not in status.stdout, status.stdout
