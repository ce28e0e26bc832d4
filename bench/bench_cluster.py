"""Judging throughput and per-job queue overhead, the embedded queue against Celery, in one
run on one machine. Both modes judge in the real sandbox, store in PostgreSQL and have two
judging slots; prints the two side by side.

    python bench/bench_cluster.py [--submissions 1000] [--sequential 100] [--quick]

- embedded: one app in this process, two judging threads (`workers=2`).
- celery: the same app sending ids over Redis to two `judge worker --queues cpu
  --concurrency 1` processes (rate limits shared in Redis, as docs/CLUSTER.md deploys it).

Submissions are POSTed through the Flask test client in this process (no HTTP server), as
ten users taking turns, each one's code made unique by a comment (an identical resubmission
is refused). All times come from the rows: created_at (the web process, when the row is
inserted), started_at (the worker, when it claims the row), judged_at (the worker, when it
stores the verdict); naive UTC with microseconds, all from this machine's clock.

- throughput: submissions / (the last judged_at - the time of the first POST), with all of
  them POSTed at once (a backlog builds: judging is slower than storing);
- latency: judged_at - created_at over that burst;
- claim: started_at - created_at with no backlog (submit one, wait for its verdict, pause
  50 ms, repeat): the queue's own cost per job, from the stored row to a worker holding it.
  The Celery overhead per job is celery's claim p50 minus embedded's.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import FrameType

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402
from sqlalchemy import Engine, func, select, text  # noqa: E402

from devtools.local_services import (  # noqa: E402
    PostgresServer,
    RedisServer,
    ServiceError,
    missing_binaries,
    terminate,
)
from runner.launchers.sandbox import SandboxUnavailable  # noqa: E402
from tests.problem_factory import GOOD, write_web_problem  # noqa: E402
from web import create_app  # noqa: E402
from web.config import QueueKind, RateLimit, WebConfig  # noqa: E402
from web.store.db import make_engine, utcnow  # noqa: E402
from web.store.models import Judging, Submission, SubmissionStatus  # noqa: E402

SLUG = "bench-add"
SECRET_KEY = "bench-cluster-secret"
SEED_HEX = "5eed5eed5eed5eed"
PASSWORD = "correct-horse-battery"
USERS = 10
SLOTS = 2  # judging slots in both modes: two threads, or two workers of one each
# Judged before measuring, so that each sandbox worker has started and each Runner has
# cached the reference's answers (a first job pays for both).
WARMUP = 3 * SLOTS
QUICK = (10, 3)  # --quick: submissions, sequential (a smoke test: startup dominates)
# High enough never to refuse the benchmark's own requests.
UNLIMITED = RateLimit(1_000_000, 60.0)
SETTLE_S = 0.05  # after each verdict in the sequential run: every worker idle again
POLL_ONE_S = 0.01  # waiting for one verdict; it sleeps, so it barely competes for the CPU
POLL_ALL_S = 0.25
STALL_S = 120.0  # no verdict stored for this long: something is broken, stop
WORKER_READY_S = 180.0
WORKER_STOP_S = 30.0  # SIGTERM is Celery's warm shutdown; then SIGKILL to the group
READY_MARK = " ready."  # Celery's log line once a worker consumes
GOAL_MS = 20.0
EXIT_FAILED, EXIT_USAGE = 1, 2


class BenchError(RuntimeError):
    """The benchmark cannot go on; the message says what failed and where to look."""


# -- the machine ----------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> float:
    return os.getloadavg()[0]


def versions(redis_url: str, engine: Engine) -> str:
    import redis

    with redis.Redis.from_url(redis_url) as client:
        redis_version = client.info("server")["redis_version"]
    with engine.connect() as db:
        pg_version = db.execute(text("SHOW server_version")).scalar_one()
    package = importlib.metadata.version
    return (
        f"Python {platform.python_version()}, celery {package('celery')} (kombu "
        f"{package('kombu')}, redis-py {package('redis')}), Redis {redis_version}, "
        f"PostgreSQL {pg_version}, SQLAlchemy {package('sqlalchemy')} with psycopg "
        f"{package('psycopg')}"
    )


# -- the deployment ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Paths:
    root: Path

    @property
    def problems(self) -> Path:
        return self.root / "problems"

    @property
    def instance(self) -> Path:
        return self.root / "instance"


def web_config(mode: QueueKind, database_url: str, paths: Paths, redis_url: str) -> WebConfig:
    celery = mode is QueueKind.CELERY
    return WebConfig(
        database_url=database_url,
        problems_dir=paths.problems,
        secret_key=SECRET_KEY,
        judge_seed=int(SEED_HEX, 16),
        workers=SLOTS,
        # Embedded: this process judges, in the sandbox. Celery: the workers judge, in the
        # sandbox; this process judges nothing (the backend would serve Runs only), so it
        # starts no sandbox workers of its own to sit beside theirs.
        judge_backend="unsafe-local" if celery else "sandbox",
        queue=mode,
        broker_url=redis_url if celery else "",
        ratelimit_url=redis_url if celery else "",
        submit_per_user=UNLIMITED,
        submit_per_ip=UNLIMITED,
        login_per_user=UNLIMITED,
        login_per_ip=UNLIMITED,
        register_per_ip=UNLIMITED,
        password_method="pbkdf2:sha256:1000",  # registering ten users is not what is measured
    )


def worker_environment(database_url: str, paths: Paths, redis_url: str) -> dict[str, str]:
    """What `judge worker` reads, as an operator would set it (docs/CLUSTER.md); the
    judge backend is left to its default, the sandbox."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env |= {
        "JUDGE_QUEUE": "celery",
        "JUDGE_BROKER_URL": redis_url,
        "JUDGE_RATELIMIT_URL": redis_url,
        "JUDGE_DATABASE_URL": database_url,
        "JUDGE_PROBLEMS": str(paths.problems),
        "JUDGE_INSTANCE": str(paths.instance),
        "JUDGE_SEED": SEED_HEX,
        "JUDGE_SECRET_KEY": SECRET_KEY,
    }
    return env


class Workers:
    """`judge worker` processes, each in a session of its own: a Ctrl-C in the terminal
    reaches only this benchmark, which then stops them in order (stop())."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.env = env
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def log(self, name: str) -> Path:
        return self.folder / f"worker-{name}.log"

    def start(self, names: list[str]) -> None:
        """Start them all at once (each takes seconds to probe its sandbox), then wait."""
        for name in names:
            argv = [sys.executable, str(REPO / "judge.py"), "worker", "--name", name]
            argv += ["--queues", "cpu", "--concurrency", "1"]
            with self.log(name).open("ab") as log:  # the child keeps its own descriptor
                self.processes[name] = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=self.env,
                    cwd=self.folder,
                    start_new_session=True,
                )
        deadline = time.monotonic() + WORKER_READY_S
        for name in names:
            while READY_MARK not in self.log(name).read_text(errors="replace"):
                self.check()
                if time.monotonic() > deadline:
                    raise BenchError(
                        f"worker {name} not ready within {WORKER_READY_S:.0f} s" + self.tail(name)
                    )
                time.sleep(0.1)

    def check(self) -> None:
        """Raise if a worker has exited: waiting for its verdicts would never end."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                raise BenchError(
                    f"worker {name} exited with status {process.returncode}" + self.tail(name)
                )

    def tail(self, name: str, lines: int = 20) -> str:
        text = self.log(name).read_text(errors="replace").strip().splitlines()[-lines:]
        return f"; the end of {self.log(name)}:\n  " + "\n  ".join(text)

    def resends(self) -> int:
        """Messages the workers' sweepers sent again (rows queued past requeue_after_s)."""
        total = 0
        for name in self.processes:
            for line in self.log(name).read_text(errors="replace").splitlines():
                if "sweeper:" in line and "sent again" in line:
                    words = line.split("sweeper:", 1)[1].replace(",", " ").split()
                    total += sum(int(w) for w in words if w.isdigit())
        return total

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)  # all drain at once, not one by one
        for process in self.processes.values():
            terminate(process.pid, WORKER_STOP_S, process, group=True)


@dataclass
class Deployment:
    mode: QueueKind
    app: Flask
    engine: Engine  # this benchmark's own pool, for reading the rows
    check: Callable[[], None]  # raises when the deployment can no longer judge
    resends: Callable[[], int]


@contextmanager
def deploy(
    mode: QueueKind, postgres: PostgresServer, redis_url: str, paths: Paths
) -> Iterator[Deployment]:
    """A fresh database and everything that judges into it; all stopped on the way out,
    whatever happened."""
    name = f"bench_{mode.value}"
    with ExitStack() as stack:
        database_url = postgres.create_database(name)
        stack.callback(postgres.drop_database, name)
        engine = make_engine(database_url)
        stack.callback(engine.dispose)
        app = create_app(web_config(mode, database_url, paths, redis_url))  # migrates
        stack.callback(app.extensions["judge_platform"].close)
        if mode is QueueKind.EMBEDDED:
            yield Deployment(mode, app, engine, lambda: None, lambda: 0)
            return
        folder = paths.root / name
        folder.mkdir()
        workers = Workers(folder, worker_environment(database_url, paths, redis_url))
        stack.callback(workers.stop)  # before the app and the database go
        workers.start(["a", "b"])
        yield Deployment(mode, app, engine, workers.check, workers.resends)


# -- submitting and reading the rows ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Account:
    username: str
    headers: dict[str, str]


def register(client: FlaskClient, username: str) -> Account:
    body = {"username": username, "password": PASSWORD}
    made = client.post("/api/register", json=body)
    if made.status_code != 201:
        raise BenchError(f"registering {username}: {made.status_code} {made.get_data(True)}")
    token = client.post("/api/token", json=body)
    if token.status_code not in (200, 201):
        raise BenchError(f"a token for {username}: {token.status_code} {token.get_data(True)}")
    return Account(username, {"Authorization": f"Bearer {token.json['token']}"})  # type: ignore[index]


class Submitter:
    """POSTs correct solutions round-robin over the users, each code unique."""

    def __init__(self, client: FlaskClient, accounts: list[Account]) -> None:
        self.client = client
        self.accounts = accounts
        self.count = 0

    def submit(self) -> int:
        who = self.accounts[self.count % len(self.accounts)]
        code = GOOD + f"# submission {self.count}\n"
        self.count += 1
        response = self.client.post(
            "/api/submissions", json={"problem": SLUG, "code": code}, headers=who.headers
        )
        if response.status_code != 202:
            raise BenchError(f"POST /api/submissions: {response.status_code} {response.json}")
        return int(response.json["id"])  # type: ignore[index]


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    created_at: datetime
    started_at: datetime
    judged_at: datetime
    verdict: str
    worker: str


def done_count(engine: Engine, ids: list[int]) -> int:
    with engine.connect() as db:
        found = db.scalar(
            select(func.count())
            .select_from(Submission)
            .where(Submission.id.in_(ids), Submission.status == SubmissionStatus.DONE)
        )
    return int(found or 0)


def wait_all(deployment: Deployment, ids: list[int], poll_s: float) -> None:
    """Until every id has its verdict; raises when nothing is judged for STALL_S."""
    done, progress_at = 0, time.monotonic()
    while done < len(ids):
        time.sleep(poll_s)
        deployment.check()
        now_done = done_count(deployment.engine, ids)
        if now_done > done:
            done, progress_at = now_done, time.monotonic()
        elif time.monotonic() - progress_at > STALL_S:
            raise BenchError(
                f"{deployment.mode}: no verdict stored for {STALL_S:.0f} s "
                f"({done} of {len(ids)} judged)"
            )


def read_rows(engine: Engine, ids: list[int]) -> list[Row]:
    """The judged rows; raises unless each is AC with exactly one judging record (a
    benchmark of wrong verdicts, or of jobs judged twice, measures something else)."""
    with engine.connect() as db:
        found = db.execute(
            select(
                Submission.id,
                Submission.created_at,
                Submission.started_at,
                Submission.judged_at,
                Submission.verdict,
                Submission.claimed_by,
            ).where(Submission.id.in_(ids))
        ).all()
        judgings = Counter(
            db.scalars(select(Judging.submission_id).where(Judging.submission_id.in_(ids)))
        )
    rows = []
    for sid, created, started, judged, verdict, worker in found:
        if started is None or judged is None:  # a done row always has both
            raise BenchError(f"submission {sid} is done without started_at and judged_at")
        rows.append(Row(sid, created, started, judged, str(verdict), str(worker)))
    verdicts = Counter(r.verdict for r in rows)
    if len(rows) != len(ids) or verdicts != Counter(AC=len(ids)):
        raise BenchError(f"expected {len(ids)} AC verdicts, found {dict(verdicts)}")
    twice = [sid for sid in ids if judgings[sid] != 1]
    if twice:
        raise BenchError(f"submissions without exactly one judging record: {twice[:10]}")
    return rows


def seconds(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds()


def percentiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 in ms (p99: nearest rank; with 100 samples the second slowest)."""
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


# -- the measurements -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    mode: QueueKind
    submissions: int
    posted_s: float
    throughput: float
    latency: tuple[float, float]
    sequential: int
    claim: tuple[float, float]
    idle_verdict: tuple[float, float]
    judged_by: dict[str, int]
    resends: int
    load: tuple[float, float]


def measure(deployment: Deployment, submissions: int, sequential: int) -> Result:
    client = deployment.app.test_client()
    submitter = Submitter(client, [register(client, f"user{n:02d}") for n in range(USERS)])
    load_before = load_average()
    warmup = [submitter.submit() for _ in range(WARMUP)]
    wait_all(deployment, warmup, POLL_ALL_S)
    read_rows(deployment.engine, warmup)

    # The burst: everything POSTed at once, then wait for the last verdict.
    first_post = utcnow()
    started = time.perf_counter()
    burst = [submitter.submit() for _ in range(submissions)]
    posted_s = time.perf_counter() - started
    wait_all(deployment, burst, POLL_ALL_S)
    rows = read_rows(deployment.engine, burst)
    elapsed = seconds(first_post, max(r.judged_at for r in rows))
    latency = percentiles([seconds(r.created_at, r.judged_at) for r in rows])

    # No backlog: one at a time, every worker idle when each is stored.
    time.sleep(SETTLE_S)
    one_by_one = []
    for _ in range(sequential):
        sid = submitter.submit()
        wait_all(deployment, [sid], POLL_ONE_S)
        one_by_one.append(sid)
        time.sleep(SETTLE_S)
    alone = read_rows(deployment.engine, one_by_one)
    return Result(
        mode=deployment.mode,
        submissions=submissions,
        posted_s=posted_s,
        throughput=submissions / elapsed,
        latency=latency,
        sequential=sequential,
        claim=percentiles([seconds(r.created_at, r.started_at) for r in alone]),
        idle_verdict=percentiles([seconds(r.created_at, r.judged_at) for r in alone]),
        judged_by=dict(sorted(Counter(r.worker for r in rows).items())),
        resends=deployment.resends(),
        load=(load_before, load_average()),
    )


def table(results: list[Result]) -> str:
    """The modes side by side, one measurement a line."""
    by = {r.mode: r for r in results}
    embedded, celery = by[QueueKind.EMBEDDED], by[QueueKind.CELERY]

    def line(label: str, cell: Callable[[Result], str]) -> str:
        return f"{label:<44} {cell(embedded):>16} {cell(celery):>16}"

    lines = [
        line("mode", lambda r: r.mode.value),
        line("judging slots", lambda r: "2 threads" if r is embedded else "2 workers x 1"),
        line("submissions in the burst", lambda r: f"{r.submissions}"),
        line("  all POSTed in (s)", lambda r: f"{r.posted_s:.1f}"),
        line("  throughput (submissions/s)", lambda r: f"{r.throughput:.1f}"),
        line("  latency p50 (ms, created -> judged)", lambda r: f"{r.latency[0]:.0f}"),
        line("  latency p99 (ms)", lambda r: f"{r.latency[1]:.0f}"),
        line("  judged by", lambda r: "/".join(str(n) for n in r.judged_by.values())),
        line("  messages resent by the sweepers", lambda r: f"{r.resends}"),
        line("one at a time, no backlog", lambda r: f"{r.sequential}"),
        line("  claim p50 (ms, created -> started)", lambda r: f"{r.claim[0]:.1f}"),
        line("  claim p99 (ms)", lambda r: f"{r.claim[1]:.1f}"),
        line("  verdict p50 (ms, created -> judged)", lambda r: f"{r.idle_verdict[0]:.1f}"),
        line("  verdict p99 (ms)", lambda r: f"{r.idle_verdict[1]:.1f}"),
        line(
            "load average (1 min), before -> after", lambda r: f"{r.load[0]:.1f} -> {r.load[1]:.1f}"
        ),
    ]
    overhead = celery.claim[0] - embedded.claim[0]
    verdict = "met" if overhead < GOAL_MS else "not met"
    lines.append(
        f"Celery overhead per job (claim p50, celery - embedded): {overhead:.1f} ms"
        f" (goal: under {GOAL_MS:.0f} ms: {verdict})"
    )
    return "\n".join(lines)


# -- the run ---------------------------------------------------------------------------------


def _raise_exit(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through every cleanup, as Ctrl-C does


def run(args: argparse.Namespace) -> int:
    missing = missing_binaries()
    if missing:
        print(f"bench_cluster: this machine lacks {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    paths = Paths(Path(tempfile.mkdtemp(prefix="bench-cluster-")))
    stack = ExitStack()
    stack.callback(shutil.rmtree, paths.root, ignore_errors=True)
    try:
        # A tiny browser-tier problem (five cases of `add`): judging is cheap, so the queue's
        # own cost is a visible part of each job.
        write_web_problem(paths.problems, SLUG)
        paths.instance.mkdir(mode=0o700)
        postgres = PostgresServer(paths.root / "postgres")  # durable: fsync on, as deployed
        stack.callback(postgres.destroy)
        redis = RedisServer(paths.root / "redis")
        stack.callback(redis.stop)
        postgres.start()
        redis.start()
        admin = make_engine(postgres.url)
        try:
            stack_versions = versions(redis.url, admin)
        finally:
            admin.dispose()
        print(
            f"{datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; {cpu_model()}, "
            f"{os.cpu_count()} cores; load average {load_average():.2f}"
        )
        print(stack_versions)
        print(
            f"{args.submissions} submissions at once, then {args.sequential} one at a time, "
            f"per mode; {SLOTS} judging slots each; the sandbox judge; PostgreSQL store",
            flush=True,
        )
        results = []
        for mode in (QueueKind.EMBEDDED, QueueKind.CELERY):
            print(f"{mode.value}: starting", flush=True)
            with deploy(mode, postgres, redis.url, paths) as deployment:
                results.append(measure(deployment, args.submissions, args.sequential))
            print(f"{mode.value}: done", flush=True)
        print()
        print(table(results))
        return 0
    except (BenchError, ServiceError, SandboxUnavailable) as exc:
        print(f"bench_cluster: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        # A second Ctrl-C must not cut the cleanup short and leave servers running.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        print("stopping what was started (workers, Redis, PostgreSQL)", file=sys.stderr)
        stack.close()


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Judging throughput and per-job queue overhead: embedded queue vs Celery."
    )
    parser.add_argument("--submissions", type=int, help="submitted at once, per mode (1000)")
    parser.add_argument("--sequential", type=int, help="submitted one at a time, per mode (100)")
    parser.add_argument(
        "--quick", action="store_true", help=f"a smoke test: {QUICK[0]} and {QUICK[1]}"
    )
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else (1000, 100)
    args.submissions = defaults[0] if args.submissions is None else args.submissions
    args.sequential = defaults[1] if args.sequential is None else args.sequential
    if args.submissions < 1 or args.sequential < 1:
        parser.error("--submissions and --sequential must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_exit)
    try:
        return run(args)
    except KeyboardInterrupt:  # run() has stopped everything it started by now
        print("bench_cluster: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
