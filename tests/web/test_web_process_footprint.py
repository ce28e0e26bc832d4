"""The web process serves pages and never loads what judging loads (issue 36, section 6):
a torch problem's Try-your-input and Run, on a real `judge serve` with the sandbox, leave
no torch in the server's own memory, which stays small; the runner lives in a child."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_host import needs_sandbox
from test_web_server_processes import Server, descendants, start_server

from web import cli

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
SLUG = "kv-cache"
INPUT = {"model": "qwen3-gqa", "batch": 1, "chunks": [4, 1], "decode": 2, "seed": 3}
# The server's resident memory after torch runs: about 85 MB measured with the runner in a
# child; over a gigabyte with the runner in the server.
MAX_RSS_MB = 200

pytestmark = [
    pytest.mark.slow,
    pytest.mark.sandbox,
    needs_sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = start_server(tmp_path, PROBLEMS)
    yield started
    started.process.kill()
    started.process.wait()
    started.process.stdout.close()  # type: ignore[union-attr]


def _loaded(pid: int) -> set[str]:
    """The files mapped into `pid`'s memory (shared libraries, among them torch's)."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return {line.split(maxsplit=5)[5] for line in maps if len(line.split(maxsplit=5)) == 6}


def _is_torch(path: str) -> bool:
    return "/torch/" in path or "libtorch" in path


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def _wait_run(client: cli.ApiClient, url: str) -> dict[str, object]:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        run = client.call("GET", url)
        if run["status"] == "done":
            return run
        time.sleep(0.2)
    pytest.fail(f"the run at {url} did not finish")


def test_torch_runs_leave_no_torch_in_the_web_process(server: Server) -> None:
    pid = server.process.pid
    client = server.client()
    code = (PROBLEMS / SLUG / "reference.py").read_text()
    for _ in range(2):
        body = {"input": json.dumps(INPUT), "code": code}
        started = client.call("POST", f"/api/problems/{SLUG}/try-input", body)
        custom = _wait_run(client, str(started["url"]))["custom"]
        assert isinstance(custom, dict) and custom["answered"], custom
    started = client.call("POST", f"/api/problems/{SLUG}/run", {"code": code})
    report = _wait_run(client, str(started["url"]))["report"]
    assert isinstance(report, dict) and report["verdict"] == "AC", report

    torch_files = sorted(path for path in _loaded(pid) if _is_torch(path))
    assert torch_files == [], torch_files[:5]
    assert _rss_mb(pid) < MAX_RSS_MB
    # The torch runs happened in a child of the server: it is the one holding torch.
    assert any(_is_torch(path) for child in descendants(pid) for path in _safe_loaded(child))


def _safe_loaded(pid: int) -> set[str]:
    try:
        return _loaded(pid)
    except OSError:  # a job's process gone, or another user's (the sandbox's) not readable
        return set()
