"""The scaled-out platform on one machine, for trying it and for its end-to-end test:

    python -m devtools.local_cluster start  [--folder .cluster] [--port 8000] [--workers 2]
    python -m devtools.local_cluster stop   [--folder .cluster]
    python -m devtools.local_cluster status [--folder .cluster]

`start` runs Redis (the broker and the rate-limit store), a PostgreSQL cluster (the
store), the workers (`judge worker --queues cpu`) and one web server (`judge serve`), all
with the same JUDGE_* environment, and returns once the web server answers HTTP; each
process keeps its log in `folder/logs` and its pid in `folder/pids`, so `stop` and
`status`, later commands, find them. Both are safe to repeat: `start` starts only what is
not running, `stop` stops only what is. See docs/CLUSTER.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from devtools.local_services import (
    PostgresServer,
    RedisServer,
    ServiceError,
    exited,
    live_pid,
)
from web.config import load_config
from web.store import migrate

DEFAULT_FOLDER = Path(".cluster")
DEFAULT_PORT = 8000
DEFAULT_WORKERS = 2
START_TIMEOUT_S = 180.0
# SIGTERM drains: the web server finishes its requests, a worker its running jobs (a
# judged run takes at most its problem's total time). Then SIGKILL, to the whole group.
WEB_GRACE_S = 30.0
WORKER_GRACE_S = 60.0
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Process:
    """One of the cluster's `judge` processes: its name, pid file and log."""

    name: str
    folder: Path

    @property
    def pidfile(self) -> Path:
        return self.folder / "pids" / f"{self.name}.pid"

    @property
    def log(self) -> Path:
        return self.folder / "logs" / f"{self.name}.log"

    def pid(self) -> int | None:
        try:
            text = self.pidfile.read_text(encoding="ascii").strip()
        except OSError:
            return None
        # Its command line names this cluster's instance folder: a pid file left by a
        # crash never leads to a process that the number now belongs to.
        return live_pid(int(text) if text.isdigit() else None, str(self.folder / "instance"))


class LocalCluster:
    def __init__(
        self,
        folder: Path = DEFAULT_FOLDER,
        *,
        port: int = DEFAULT_PORT,
        workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.folder = folder.resolve()
        self.instance = self.folder / "instance"
        self.redis = RedisServer(self.folder / "redis")
        self.postgres = PostgresServer(self.folder / "postgres")
        self.port = _remembered_port(self.folder) or port
        self.web = Process("web", self.folder)
        # As many as asked for, and any more a pid file says an earlier start made.
        started = {p.stem for p in (self.folder / "pids").glob("worker-*.pid")}
        names = {f"worker-{n}" for n in range(1, workers + 1)} | started
        self.workers = [Process(name, self.folder) for name in sorted(names, key=_number)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def environment(self) -> dict[str, str]:
        """What every `judge` process of the cluster runs with (on top of ours: a
        JUDGE_BACKEND or JUDGE_PROBLEMS given to `start` reaches them all)."""
        env = dict(os.environ)
        env.update(
            JUDGE_QUEUE="celery",
            JUDGE_BROKER_URL=self.redis.url,
            JUDGE_DATABASE_URL=self.postgres.url,
            JUDGE_RATELIMIT_URL=self.redis.url,
            JUDGE_INSTANCE=str(self.instance),
        )
        return env

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start what is not running, then wait until the web server answers HTTP."""
        self.folder.mkdir(parents=True, exist_ok=True)
        # Keeps a cluster made inside a checkout out of `git status`.
        (self.folder / ".gitignore").write_text("*\n", encoding="ascii")
        for sub in ("pids", "logs"):
            (self.folder / sub).mkdir(exist_ok=True)
        self.redis.start()
        self.postgres.start()
        env = self.environment()
        # Once here, before any `judge` process: the secrets (the judge seed every worker
        # must share) are created by one process, not raced for by several, and a bad
        # JUDGE_* setting is reported before anything else starts.
        with _environment(env):
            load_config(self.instance)
        migrate.upgrade(self.postgres.url)
        base = [sys.executable, "-m", "practice_judge"]
        instance = ["--instance", str(self.instance)]
        for worker in self.workers:
            if worker.pid() is None:
                _launch(worker, [*base, "worker", "--queues", "cpu", *instance], env)
        if self.web.pid() is None:
            serve = [*base, "serve", "--host", "127.0.0.1", "--port", str(self.port)]
            _launch(self.web, [*serve, *instance], env)
            (self.folder / "web.port").write_text(f"{self.port}\n", encoding="ascii")
        self._wait_until_up(timeout_s)

    def stop(self) -> None:
        """Web server first (no new submissions), then the workers, PostgreSQL, Redis."""
        _stop([self.web], WEB_GRACE_S)
        _stop(self.workers, WORKER_GRACE_S)
        self.postgres.stop()
        self.redis.stop()
        (self.folder / "web.port").unlink(missing_ok=True)

    def status(self) -> list[tuple[str, int | None, str]]:
        """(name, pid or None when it is not running, where it is) for each part."""
        rows: list[tuple[str, int | None, str]] = [
            ("redis", self.redis.pid, self.redis.url),
            ("postgres", self.postgres.pid, self.postgres.url),
        ]
        rows += [(w.name, w.pid(), str(w.log)) for w in self.workers]
        rows.append(("web", self.web.pid(), self.url))
        return rows

    def _wait_until_up(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        probe = f"http://127.0.0.1:{self.port}/api/problems"
        while True:
            for process in [self.web, *self.workers]:
                if process.pid() is None:
                    raise ServiceError(f"{process.name} exited on start" + _tail(process.log))
            try:
                with urllib.request.urlopen(probe, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass  # not listening yet (an HTTP error status is an URLError too)
            if time.monotonic() > deadline:
                raise ServiceError(
                    f"the web server did not answer {probe} within {timeout_s:g} s"
                    + _tail(self.web.log)
                )
            time.sleep(0.2)


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """os.environ as `env` for a while (load_config reads it), then as it was."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _number(name: str) -> int:
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _remembered_port(folder: Path) -> int | None:
    """The port of a web server this folder's cluster runs now (stop and status)."""
    try:
        text = (folder / "web.port").read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _launch(process: Process, argv: list[str], env: dict[str, str]) -> None:
    with process.log.open("ab") as log:
        started = subprocess.Popen(
            argv,
            cwd=process.folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            # A session of its own: it outlives this command, a Ctrl-C in this terminal
            # does not reach it, and its group is what a SIGKILL after the grace takes.
            start_new_session=True,
        )
    process.pidfile.write_text(f"{started.pid}\n", encoding="ascii")


def _stop(processes: list[Process], grace_s: float) -> None:
    """SIGTERM to all at once, then SIGKILL to the process group of any still alive."""
    running = [(p, pid) for p in processes if (pid := p.pid()) is not None]
    for _, pid in running:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while any(not exited(pid) for _, pid in running) and time.monotonic() < deadline:
        time.sleep(0.1)
    for _, pid in running:
        if not exited(pid):
            try:
                os.killpg(pid, signal.SIGKILL)  # the leader lives: the group is still its
            except ProcessLookupError:
                pass
    for process in processes:
        process.pidfile.unlink(missing_ok=True)


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return f"; the end of {path}:\n  " + "\n  ".join(text.splitlines()[-lines:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.local_cluster",
        description="Redis, PostgreSQL, judge workers and a web server on this machine.",
    )
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="the web server's port")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help="judge workers")
    parser.add_argument("--timeout", type=float, default=START_TIMEOUT_S, help="start: seconds")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.command != "start" and not args.folder.is_dir():
        print(f"no cluster in {args.folder}")
        return EXIT_OK if args.command == "stop" else EXIT_FAILED
    cluster = LocalCluster(args.folder, port=args.port, workers=args.workers)
    if args.command == "stop":
        cluster.stop()
        print(f"stopped the cluster in {args.folder}")
        return EXIT_OK
    if args.command == "status":
        rows = cluster.status()
        for name, pid, where in rows:
            state = f"running (pid {pid})" if pid is not None else "stopped"
            print(f"{name:<10} {state:<22} {where}")
        return EXIT_OK if all(pid is not None for _, pid, _ in rows) else EXIT_FAILED
    try:
        cluster.start(args.timeout)
    except (ServiceError, ValueError) as exc:
        print(f"local cluster: {exc}", file=sys.stderr)
        print("stopping the cluster", file=sys.stderr)
        cluster.stop()
        return EXIT_FAILED
    print(f"the platform is up at {cluster.url} (stop: python -m devtools.local_cluster stop)")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
