"""The local child spawned without subprocess (judge/run/spawned_child.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.run import spawned_child
from judge.run.spawned_child import SpawnedChild, boot_closing_inherited

pytestmark = pytest.mark.skipif(
    not spawned_child.available(), reason="no posix_spawn with pidfds on this platform"
)

# What a child reports about itself: its descriptors, folder, session, and what came in on 3.
_REPORT = """
import json, os, sys
request = os.read(3, 100).decode()
fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
report = {"fds": fds, "cwd": os.getcwd(), "leads_session": os.getsid(0) == os.getpid(),
          "request": request, "stdin": sys.stdin.read()}
os.write(4, json.dumps(report).encode())
print("out"); print("err", file=sys.stderr)
"""


def _spawn(tmp_path: Path, code: str) -> tuple[SpawnedChild, int, int]:
    """A python child running `code` after the boot; the parent's request write end and
    result read end."""
    req_r, req_w = os.pipe()
    res_r, res_w = os.pipe()
    argv = [sys.executable, "-I", "-S", "-c", boot_closing_inherited(str(tmp_path)) + code]
    try:
        child = SpawnedChild(argv, {"PATH": "/usr/bin:/bin"}, req_r, res_w)
    finally:
        os.close(req_r)
        os.close(res_w)
    return child, req_w, res_r


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def test_the_child_has_its_pipes_at_0_to_4_its_folder_and_a_session_and_nothing_else(
    tmp_path: Path,
) -> None:
    stray = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(stray, True)  # as a parent may have been given one by its own parent
    try:
        child, req_w, res_r = _spawn(tmp_path, _REPORT)
    finally:
        os.close(stray)
    os.write(req_w, b"hello")
    os.close(req_w)
    report = json.loads(_read_all(res_r))
    assert child.wait(30.0) == 0
    assert report["request"] == "hello"
    assert report["stdin"] == ""  # /dev/null
    assert report["cwd"] == str(tmp_path)
    assert report["leads_session"] is True
    # 0-4, and the one listdir itself opened; never `stray`, whatever its number
    assert report["fds"][:5] == [0, 1, 2, 3, 4] and len(report["fds"]) == 6
    assert _read_all(child.stdout_fd) == b"out\n"
    assert _read_all(child.stderr_fd) == b"err\n"


def test_a_parent_whose_low_descriptors_are_closed_still_hands_over_the_right_pipes(
    tmp_path: Path,
) -> None:
    """With 0-2 closed, the pipes land on them: no dup2 may overwrite a source it still
    needs. Run in a process of its own, which closes its standard streams first."""
    code = textwrap.dedent(
        f"""
        import json, os, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from judge.run.spawned_child import SpawnedChild, boot_closing_inherited
        log = os.dup(1)
        for fd in (0, 1, 2):
            os.close(fd)
        req_r, req_w = os.pipe()   # 0, 1
        res_r, res_w = os.pipe()   # 2, and the next free one
        code = "import os; os.write(4, os.read(3, 10)[::-1])"
        argv = [sys.executable, "-I", "-S", "-c", boot_closing_inherited({str(tmp_path)!r}) + code]
        child = SpawnedChild(argv, {{}}, req_r, res_w)
        os.close(req_r); os.close(res_w)
        os.write(req_w, b"abc"); os.close(req_w)
        answer = os.read(res_r, 10)
        os.write(log, json.dumps([answer.decode(), child.wait(30.0)]).encode())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["cba", 0]


def test_wait_gives_none_while_it_runs_and_the_signal_once_killed(tmp_path: Path) -> None:
    child, req_w, res_r = _spawn(tmp_path, "import time; time.sleep(60)")
    try:
        assert child.wait(0.05) is None
        os.killpg(child.pid, signal.SIGKILL)
        assert child.wait(30.0) == -signal.SIGKILL
        assert child.wait(0.0) == -signal.SIGKILL  # reaped once, remembered after
        assert not Path(f"/proc/{child.pid}").exists() or _is_other_process(child.pid)
    finally:
        os.close(req_w)
        os.close(res_r)
        child.close_pipes()


def test_sigpipe_and_sigxfsz_start_at_their_defaults_in_the_child(tmp_path: Path) -> None:
    """Python ignores both; Popen reset them for the child, and so does the spawn."""
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # this interpreter's own
    req_r, req_w = os.pipe()
    res_r, res_w = os.pipe()
    argv = ["/bin/sh", "-c", "grep SigIgn /proc/self/status >&4"]
    try:
        child = SpawnedChild(argv, {"PATH": "/usr/bin:/bin"}, req_r, res_w)
    finally:
        os.close(req_r)
        os.close(res_w)
    os.close(req_w)
    ignored = int(_read_all(res_r).split()[1], 16)
    assert child.wait(30.0) == 0
    child.close_pipes()
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        assert not ignored & (1 << (sig - 1)), f"{sig.name} is ignored in the child"


def _is_other_process(pid: int) -> bool:
    """A reaped pid may already belong to someone else: not a zombie of ours."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return True


def test_judge_run_judges_through_a_spawned_child_without_importing_subprocess(
    tmp_path: Path,
) -> None:
    """A whole `judge run` of a real problem: the verdict, and no `subprocess` (nor the
    `threading` it brings) in the parent when it exits."""
    repo = Path(__file__).resolve().parents[2]
    code = textwrap.dedent(
        """
        import atexit, runpy, sys
        atexit.register(lambda: print(sorted({"subprocess", "threading"} & set(sys.modules)),
                                      file=sys.stderr))
        sys.argv = ["judge.py", "run", "kv-bytes-per-token",
                    "problems/kv-bytes-per-token/reference.py"]
        runpy.run_path("judge.py", run_name="__main__")
        """
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "JUDGE_SPEC_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, env=env,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Accepted" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_a_parent_that_ignores_sigchld_still_waits_without_an_error(tmp_path: Path) -> None:
    """The kernel reaps the child itself there; the wait reports an exit, as Popen does."""
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        child, req_w, res_r = _spawn(tmp_path, "pass")
        os.close(req_w)
        _read_all(res_r)  # its result end closes when it exits
        assert child.wait(30.0) == 0
        child.close_pipes()
    finally:
        signal.signal(signal.SIGCHLD, previous)
