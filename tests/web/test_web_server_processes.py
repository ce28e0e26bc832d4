"""`judge serve` as a real process: SIGTERM drains and exits 0, and neither SIGTERM nor
kill -9 leaves a judging process behind (issue 10, section 7: after the server died its
pool processes lived on forever with parent 1)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from problem_factory import GOOD

from web import cli

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = "import time\ntime.sleep(60)\n\ndef add(a, b):\n    return a + b\n"
GONE_WITHIN_S = 10.0


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    stderr: Path

    def client(self) -> cli.ApiClient:
        client = cli.ApiClient(self.url)
        body = {"username": "ada", "password": "correct-horse"}
        client.call("POST", "/api/register", body)
        client.token = str(client.call("POST", "/api/token", body)["token"])
        return client


def start_server(tmp_path: Path, problems: Path, *flags: str) -> Server:
    argv = [sys.executable, "-m", "web.cli", "serve", "--port", "0", "--workers", "1"]
    argv += ["--instance", str(tmp_path / "instance"), "--problems", str(problems), *flags]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    stderr = tmp_path / "server.stderr"
    with stderr.open("w") as err:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True
        )
    first = process.stdout.readline()  # type: ignore[union-attr]
    if not first.startswith("serving on http://127.0.0.1:"):
        process.kill()
        process.wait()
        pytest.fail(f"judge serve did not start: {first!r}\n{stderr.read_text()}")
    return Server(process, first.split()[-1].rstrip("/"), stderr)


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
        server.process.stdout.close()  # type: ignore[union-attr]


def proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) from /proc/<pid>/stat, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every process below `pid`, as pid -> start time (so a reused pid is not confused)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := proc_stat(int(entry.name))) is not None:
            stats[int(entry.name)] = stat
    found: dict[int, int] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (_state, ppid, started) in stats.items():
            if ppid == parent and child not in found:
                found[child] = started
                frontier.append(child)
    return found


def still_alive(processes: dict[int, int]) -> dict[int, int]:
    alive = {}
    for pid, started in processes.items():
        stat = proc_stat(pid)
        if stat is not None and stat[2] == started and stat[0] not in ("Z", "X"):
            alive[pid] = started
    return alive


def wait_gone(processes: dict[int, int]) -> dict[int, int]:
    deadline = time.monotonic() + GONE_WITHIN_S
    while (alive := still_alive(processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def judge_once(server: Server) -> cli.ApiClient:
    """One judged submission, so the judging processes exist."""
    client = server.client()
    created = client.call("POST", "/api/submissions", {"problem": "add-two", "code": GOOD})
    assert cli.wait_for_verdict(client, str(created["url"]), 60.0)["verdict"] == "AC"
    return client


def test_sigterm_drains_exits_0_and_leaves_no_judging_process(
    tmp_path: Path, problems_root: Path, servers: list[Server]
) -> None:
    """Pins: SIGTERM killed the server without stopping its pool (exit -15)."""
    server = start_server(tmp_path, problems_root, "--unsafe-local-judge")
    servers.append(server)
    judge_once(server)
    children = descendants(server.process.pid)
    assert children, "the judging pool should be running"
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    assert wait_gone(children) == {}
    log = server.stderr.read_text()
    assert "WARNING: judging without a sandbox" in log
    assert "POST /api/submissions 202 " in log  # the access log goes to stderr


def test_kill_9_mid_judging_leaves_no_judging_process(
    tmp_path: Path, problems_root: Path, servers: list[Server]
) -> None:
    """Pins: after kill -9 the pool processes (and the job they ran) lived on, parent 1."""
    server = start_server(tmp_path, problems_root, "--unsafe-local-judge")
    servers.append(server)
    client = judge_once(server)
    pool = descendants(server.process.pid)
    client.call("POST", "/api/submissions", {"problem": "add-two", "code": SLEEPER})
    deadline = time.monotonic() + 20
    while len(children := descendants(server.process.pid)) <= len(pool):
        assert time.monotonic() < deadline, "the sleeping job never started"
        time.sleep(0.05)
    server.process.kill()
    server.process.wait(timeout=10)
    assert wait_gone(children) == {}


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_kill_9_leaves_no_sandbox_worker(
    tmp_path: Path, problems_root: Path, servers: list[Server]
) -> None:
    """The runner's bubblewrap workers die with the server (--die-with-parent)."""
    server = start_server(tmp_path, problems_root)
    servers.append(server)
    judge_once(server)
    children = descendants(server.process.pid)
    assert children, "the sandbox workers should be running"
    server.process.kill()
    server.process.wait(timeout=10)
    assert wait_gone(children) == {}
