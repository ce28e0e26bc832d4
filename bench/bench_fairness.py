"""One account running the worst it may, another learner beside it (issue 36): side by side,
how long the other learner waits alone and under the attack.

A real `judge serve` (the sandbox, two judging threads, the defaults for everything else)
in a child process. The attacker, one account, keeps a sleeping serve-engine Run and
sleeping serve-engine submissions going back to back (its engine sleeps in `__init__`,
within the problem's limits), as many as the server lets it. The victim, another
account, then:

- tries its own input on kv-bytes-per-token (a browser-tier page asks the server for the
  reference's answer: a run), from the request to the answer;
- submits kv-bytes-per-token's reference, from the request to the verdict.

Each is measured `--rounds` times alone (after one warm-up) and again under the attack.
Goals: the try-input within 5 s, the submission within 10 s of its time alone.

    python bench/bench_fairness.py [--rounds 3] [--sleep-s 19]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge.problem.speed_spec import cpu_model  # noqa: E402

PROBLEMS = REPO / "problems"
VICTIM_PROBLEM = "kv-bytes-per-token"
ATTACK_PROBLEM = "serve-engine"
VICTIM_INPUT = {
    "config": {
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "hidden_size": 1024,
        "head_dim": 128,
    },
    "kv_dtype": "bfloat16",
}
POLL_S = 0.1


class Client:
    """One account on the server, over plain HTTP with its API token."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        self.token = ""
        body = {"username": name, "password": "correct-horse-battery"}
        self.call("POST", "/api/register", body)
        self.token = str(self.call("POST", "/api/token", body)[1]["token"])

    def call(self, method: str, path: str, body: object = None) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def until_done(self, url: str, timeout_s: float = 900.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            status, seen = self.call("GET", url)
            if status == 200 and seen.get("status") == "done":
                return seen
            time.sleep(POLL_S)
        raise RuntimeError(f"{url} not done after {timeout_s:g} s")


def start_server(folder: Path) -> tuple[subprocess.Popen[str], str]:
    argv = [sys.executable, "-m", "web.cli", "serve", "--port", "0", "--workers", "2"]
    argv += ["--instance", str(folder / "instance"), "--problems", str(PROBLEMS)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=log, text=True
    )
    first = process.stdout.readline()  # type: ignore[union-attr]
    if not first.startswith("serving on "):
        process.kill()
        raise SystemExit(f"judge serve did not start: {first!r} (see {folder}/server.log)")
    return process, first.split()[-1].rstrip("/")


def try_input(victim: Client, give_up_s: float = 600.0) -> float:
    """Seconds from the first request to the answer; a refusal for busy slots (429) is
    asked again after its Retry-After, as the page's learner would, and counts."""
    started = time.monotonic()
    body = {"input": json.dumps(VICTIM_INPUT)}
    path = f"/api/problems/{VICTIM_PROBLEM}/try-input"
    while (answer := victim.call("POST", path, body))[0] == 429:
        if time.monotonic() - started > give_up_s:
            raise RuntimeError(f"try-input refused for {give_up_s:g} s: {answer[1]}")
        time.sleep(float(answer[1].get("error", {}).get("retry_after", 1)))
    status, run = answer
    if status != 202:
        raise RuntimeError(f"try-input refused: {status} {run}")
    custom = victim.until_done(run["url"])["custom"]
    if not custom.get("answered"):
        raise RuntimeError(f"try-input not answered: {custom}")
    return time.monotonic() - started


def submit(victim: Client, code: str) -> float:
    started = time.monotonic()
    body = {"problem": VICTIM_PROBLEM, "code": code}
    status, created = victim.call("POST", "/api/submissions", body)
    if status != 202:
        raise RuntimeError(f"submission refused: {status} {created}")
    verdict = victim.until_done(created["url"])
    if verdict.get("verdict") != "AC":
        raise RuntimeError(f"the reference was not accepted: {verdict.get('verdict')}")
    return time.monotonic() - started


class Attacker(threading.Thread):
    """One account: a sleeping Run and sleeping submissions, back to back."""

    def __init__(self, client: Client, sleep_s: float) -> None:
        super().__init__(name="attacker", daemon=True)
        self.client = client
        reference = (PROBLEMS / ATTACK_PROBLEM / "reference.py").read_text()
        marker = "    def __init__(self, runner):\n"
        if marker not in reference:
            raise SystemExit(f"{ATTACK_PROBLEM}'s reference has no Engine.__init__ to slow")
        slow = f"{marker}        import time\n        time.sleep({sleep_s})\n"
        self.code = reference.replace(marker, slow, 1)
        self.stop = threading.Event()
        self.runs = self.submissions = self.refusals = 0

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            code = f"{self.code}\n# {n}\n"
            path = f"/api/problems/{ATTACK_PROBLEM}/run"
            status, _ = self.client.call("POST", path, {"code": code})
            self.runs += status == 202
            self.refusals += status == 429
            body = {"problem": ATTACK_PROBLEM, "code": code}
            status, _ = self.client.call("POST", "/api/submissions", body)
            self.submissions += status == 202
            self.refusals += status == 429
            self.stop.wait(1.0)


def measure(victim: Client, rounds: int, reference: str, tag: str) -> tuple[list[float], ...]:
    tries = [try_input(victim) for _ in range(rounds)]
    submits = [submit(victim, f"{reference}\n# {tag} {i}\n") for i in range(rounds)]
    return tries, submits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sleep-s", type=float, default=19.0)
    args = parser.parse_args()
    reference = (PROBLEMS / VICTIM_PROBLEM / "reference.py").read_text()
    with tempfile.TemporaryDirectory(prefix="bench-fairness-") as tmp:
        process, base = start_server(Path(tmp))
        try:
            victim, attacker = (
                Client(base, "victim"),
                Attacker(Client(base, "attacker"), args.sleep_s),
            )
            try_input(victim)  # warm-up: the first of each pays the server's cold costs
            submit(victim, f"{reference}\n# warm-up\n")
            alone = measure(victim, args.rounds, reference, "alone")
            attacker.start()
            time.sleep(5.0)  # its run and first submission are being judged
            attacked = measure(victim, args.rounds, reference, "attacked")
            attacker.stop.set()
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    print(
        f"# {cpu_model()}, {os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f}; attacker: {attacker.runs} runs and {attacker.submissions} "
        f"submissions started, {attacker.refusals} refused; its engine sleeps {args.sleep_s:g} s"
    )
    print("| the other learner's | alone, median (max) | under attack, median (max) | goal |")
    print("|---|---:|---:|---|")
    rows = (("Try-your-input answer", 0, "<= 5 s"), ("submission's verdict", 1, "<= alone + 10 s"))
    for label, index, goal in rows:
        a, b = alone[index], attacked[index]
        print(
            f"| {label} | {statistics.median(a):.2f} s ({max(a):.2f}) "
            f"| {statistics.median(b):.2f} s ({max(b):.2f}) | {goal} |"
        )
    worst_try = max(attacked[0])
    worst_extra = max(attacked[1]) - statistics.median(alone[1])
    held = worst_try <= 5.0 and worst_extra <= 10.0
    print(
        f"\ngoals {'held' if held else 'MISSED'}: worst try-input {worst_try:.2f} s, "
        f"worst submission {worst_extra:+.2f} s over its median alone"
    )


if __name__ == "__main__":
    main()
