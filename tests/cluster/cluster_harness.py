"""A whole Celery deployment on this machine for one test: a fresh PostgreSQL database,
a Redis of the test's own (a test may restart it), `judge worker` processes started as
the operator would, and the web app (in process, or as `judge serve`) over the same
database and broker. Nothing is mocked: the workers judge in the real sandbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import write_web_problem
from sqlalchemy import Engine, select

from devtools.local_services import RedisServer, free_port, missing_binaries
from web import create_app
from web.config import QueueKind, RateLimit, WebConfig
from web.store.db import make_engine
from web.store.models import Judging, Standing, Submission

REPO = Path(__file__).resolve().parents[2]
# Every cluster test: it needs the sandbox (the workers judge in it), takes seconds, and is
# skipped, naming what is missing, only where Redis or PostgreSQL is not installed.
MARKS = [
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing_binaries()), reason=f"missing {missing_binaries()}"),
]
PASSWORD = "correct-horse-battery"
SEED_HEX = "5eed5eed5eed5eed"
LEASE_S = 3.0
# About 2.5 s a job (five cases): long enough to kill, stop or restart something mid-job.
SLOW = "import time\n\ndef add(a, b):\n    time.sleep(0.5)\n    return a + b\n"
READY_MARK = " ready."  # Celery's log line once a worker consumes


@dataclass
class Account:
    username: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Cluster:
    def __init__(self, folder: Path, redis: RedisServer, database_url: str) -> None:
        self.folder = folder
        self.redis = redis
        self.database_url = database_url
        self.problems = folder / "problems"
        write_web_problem(self.problems, "add-two")
        write_web_problem(self.problems, "add-on-gpu", tier="torch", devices=("cuda",))
        # Torch tier in name only (its cases need nothing but the standard library): it can
        # be Run on the server.
        write_web_problem(self.problems, "add-torch", tier="torch")
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.servers: list[subprocess.Popen[bytes]] = []
        self.apps: list[Flask] = []
        self.engine: Engine = make_engine(database_url)

    # -- configuration, the same for every process ------------------------------------

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        env |= {
            "JUDGE_QUEUE": "celery",
            "JUDGE_BROKER_URL": self.redis.url,
            "JUDGE_RATELIMIT_URL": self.redis.url,
            "JUDGE_DATABASE_URL": self.database_url,
            "JUDGE_PROBLEMS": str(self.problems),
            "JUDGE_INSTANCE": str(self.folder / "instance"),
            "JUDGE_SEED": SEED_HEX,
            "JUDGE_SECRET_KEY": "cluster-test-secret",
            "JUDGE_LEASE_S": str(LEASE_S),
            "JUDGE_REQUEUE_AFTER_S": "3",
            "JUDGE_SWEEP_EVERY_S": "0.5",
        }
        return env

    def config(self) -> WebConfig:
        return WebConfig(
            database_url=self.database_url,
            problems_dir=self.problems,
            secret_key="cluster-test-secret",
            judge_seed=int(SEED_HEX, 16),
            queue=QueueKind.CELERY,
            broker_url=self.redis.url,
            ratelimit_url=self.redis.url,
            # The web side judges nothing here (workers do); Runs would use this judge.
            judge_backend="unsafe-local",
            submit_per_user=RateLimit(500, 60.0),
            submit_per_ip=RateLimit(1000, 60.0),
            password_method="pbkdf2:sha256:1000",
            lease_s=LEASE_S,
            requeue_after_s=3.0,
            sweep_every_s=0.5,
        )

    # -- processes ------------------------------------------------------------------------

    def start_worker(self, name: str, queues: str = "cpu", concurrency: int = 1) -> None:
        argv = [sys.executable, str(REPO / "judge.py"), "worker", "--name", name]
        argv += ["--queues", queues, "--concurrency", str(concurrency)]
        with (self.folder / f"worker-{name}.log").open("ab") as log:  # the child keeps a copy
            self.workers[name] = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=self.env(), cwd=self.folder
            )
        wait_for(lambda: READY_MARK in self.worker_log(name), 180, f"worker {name} ready")

    def worker_log(self, name: str) -> str:
        path = self.folder / f"worker-{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def signal_worker(self, name: str, sig: int) -> None:
        os.kill(self.workers[name].pid, sig)

    def start_server(self) -> str:
        port = free_port()
        env = self.env() | {"JUDGE_BACKEND": "unsafe-local"}
        argv = [sys.executable, str(REPO / "judge.py"), "serve", "--port", str(port)]
        with (self.folder / f"serve-{port}.log").open("ab") as log:
            self.servers.append(
                subprocess.Popen(
                    argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.folder
                )
            )
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: _answers(base + "/api/problems"), 120, "judge serve answering")
        return base

    def app(self, **changes: object) -> FlaskClient:
        app = create_app(self.config().with_(**changes))
        self.apps.append(app)
        return app.test_client()

    def close(self) -> None:
        for app in self.apps:
            app.extensions["judge_platform"].close()
        for process in [*self.workers.values(), *self.servers]:
            _stop(process)
        self.engine.dispose()

    # -- the database, as the tests read it ------------------------------------------------

    def rows(self, ids: Iterable[int]) -> dict[int, Submission]:
        with self.engine.connect() as db:
            found = db.execute(select(Submission).where(Submission.id.in_(list(ids)))).all()
        return {row.id: row for row in found}

    def wait_judged(self, ids: list[int], timeout_s: float = 180) -> dict[int, Any]:
        def done() -> bool:
            rows = self.rows(ids)
            return len(rows) == len(ids) and all(r.status == "done" for r in rows.values())

        wait_for(done, timeout_s, f"{len(ids)} submissions judged")
        return self.rows(ids)

    def judgings(self) -> dict[int, list[tuple[int, str | None]]]:
        with self.engine.connect() as db:
            found = db.execute(select(Judging).order_by(Judging.id)).all()
        out: dict[int, list[tuple[int, str | None]]] = {}
        for j in found:
            out.setdefault(j.submission_id, []).append((j.attempt, j.worker))
        return out

    def standings(self) -> list[tuple[int, int, int]]:
        with self.engine.connect() as db:
            found = db.execute(select(Standing).order_by(Standing.user_id)).all()
        return [(s.user_id, s.points, s.solved) for s in found]

    def wait_running(self, worker: str, timeout_s: float = 60) -> int:
        """The id of a submission `worker` holds, once it holds one."""
        held: list[int] = []

        def holds() -> bool:
            with self.engine.connect() as db:
                found = db.execute(
                    select(Submission.id).where(
                        Submission.status == "running", Submission.claimed_by == worker
                    )
                ).all()
            held[:] = [r.id for r in found]
            return bool(held)

        wait_for(holds, timeout_s, f"worker {worker} running a job")
        return held[0]


def register(client: FlaskClient, username: str) -> Account:
    response = client.post("/api/register", json={"username": username, "password": PASSWORD})
    assert response.status_code == 201, response.json
    token = client.post("/api/token", json={"username": username, "password": PASSWORD})
    assert token.status_code in (200, 201), token.json
    return Account(username, token.json["token"])


def submit(client: FlaskClient, who: Account, code: str, problem: str = "add-two") -> int:
    response = client.post(
        "/api/submissions", json={"problem": problem, "code": code}, headers=who.auth
    )
    assert response.status_code == 202, response.json
    return int(response.json["id"])


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.kill(process.pid, signal.SIGCONT)  # a test may have left it stopped
        process.terminate()
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
