"""The web process's memory through torch Try-your-inputs (issue 36, section 6): a real
`judge serve` (the sandbox, the defaults), N torch Try-your-inputs one after another, and
the resident memory of the server and of its judge process (web/judging/judge_process.py)
after each tenth, with whether torch is mapped into each.

The server allows 10 runs per 5 minutes per account and 30 per address: the inputs come
from accounts of ten each, over source addresses of 127.0.0.0/8 of 25 each.

    python bench/bench_web_footprint.py [--inputs 50] [--problem kv-cache]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge.problem.speed_spec import cpu_model  # noqa: E402

PROBLEMS = REPO / "problems"
INPUTS = {
    "kv-cache": {"model": "qwen3-gqa", "batch": 1, "chunks": [4, 1], "decode": 2, "seed": 3},
    "greedy-generate": None,  # taken from its first public case
}
PER_ACCOUNT, PER_ADDRESS = 10, 25


def call(
    port: int, source: str, method: str, path: str, body: object = None, token: str = ""
) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=120, source_address=(source, 0)
    )
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body)
    connection.request(method, path, body=data, headers=headers)
    answer = connection.getresponse()
    payload = json.loads(answer.read() or b"{}")
    connection.close()
    return answer.status, payload


def account(port: int, source: str, name: str) -> str:
    body = {"username": name, "password": "correct-horse-battery"}
    call(port, source, "POST", "/api/register", body)
    return str(call(port, source, "POST", "/api/token", body)[1]["token"])


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def has_torch(pid: int) -> bool:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return "/torch/" in maps or "libtorch" in maps


def judge_child(pid: int) -> int | None:
    """The server's child running web.judging.judge_process, by its command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == pid and b"web.judging.judge_process" in cmdline:
            return int(entry.name)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=50)
    parser.add_argument("--problem", default="kv-cache", choices=sorted(INPUTS))
    args = parser.parse_args()
    given = INPUTS[args.problem] or _first_public_args(args.problem)
    code = (PROBLEMS / args.problem / "reference.py").read_text()
    with tempfile.TemporaryDirectory(prefix="bench-footprint-") as tmp:
        argv = [
            sys.executable,
            "-m",
            "web.cli",
            "serve",
            "--port",
            "0",
            "--workers",
            "2",
            "--instance",
            f"{tmp}/instance",
            "--problems",
            str(PROBLEMS),
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        with open(f"{tmp}/server.log", "w") as log:
            server = subprocess.Popen(
                argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=log, text=True
            )
        first = server.stdout.readline()  # type: ignore[union-attr]
        port = int(first.rsplit(":", 1)[-1].strip().rstrip("/"))
        rows = [(0, rss_mb(server.pid), has_torch(server.pid), None, None, 0.0)]
        started = time.monotonic()
        tokens: dict[tuple[str, int], str] = {}
        try:
            for n in range(args.inputs):
                source = f"127.0.0.{2 + n // PER_ADDRESS}"
                key = (source, n // PER_ACCOUNT)
                if key not in tokens:
                    tokens[key] = account(port, source, f"learner{key[1]}")
                body = {"input": json.dumps(given), "code": code}
                path = f"/api/problems/{args.problem}/try-input"
                status, run = call(port, source, "POST", path, body, tokens[key])
                if status != 202:
                    raise SystemExit(f"input {n + 1} refused: {status} {run}")
                while (seen := call(port, source, "GET", run["url"], None, tokens[key])[1])[
                    "status"
                ] != "done":
                    time.sleep(0.1)
                if not seen["custom"].get("answered"):
                    raise SystemExit(f"input {n + 1} not answered: {seen['custom']}")
                if (n + 1) % 10 == 0 or n + 1 == args.inputs:
                    child = judge_child(server.pid)
                    rows.append(
                        (
                            n + 1,
                            rss_mb(server.pid),
                            has_torch(server.pid),
                            rss_mb(child) if child else None,
                            has_torch(child) if child else None,
                            time.monotonic() - started,
                        )
                    )
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait()
    print(
        f"# {cpu_model()}, {os.cpu_count()} cores; "
        f"{args.problem} Try-your-input with the reference's code, one after another"
    )
    print("| inputs done | web process RSS | torch in it | judge process RSS | torch in it | s |")
    print("|---:|---:|---|---:|---|---:|")
    for done, web_mb, web_torch, child_mb, child_torch, seconds in rows:
        child_text = "-" if child_mb is None else f"{child_mb:.0f} MB"
        child_has = "-" if child_torch is None else ("yes" if child_torch else "no")
        print(
            f"| {done} | {web_mb:.0f} MB | {'yes' if web_torch else 'no'} | {child_text} "
            f"| {child_has} | {seconds:.0f} |"
        )


def _first_public_args(slug: str) -> object:
    from judge.problem.cases import load_module, public_cases
    from judge.problem.problemset import ProblemSet

    problem = ProblemSet(PROBLEMS).get(slug)
    driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
    return public_cases(problem, driver)[0].args


if __name__ == "__main__":
    main()
