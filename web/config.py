"""The platform's settings: one frozen dataclass, read once when the app is created."""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from judge.problem.device import DevicePolicy, parse_policy
from judge.problem.speed_spec import MAX_RELATIVE_SPREAD, check_spread_limit
from web.store.filemodes import private_dir, private_file

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INSTANCE = REPO_ROOT / "instance"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `count` events per `per_s` seconds for one key (a user or an IP address)."""

    count: int
    per_s: float


class QueueKind(StrEnum):
    """Who judges stored submissions."""

    EMBEDDED = "embedded"  # threads in this server process (the default; SQLite is enough)
    CELERY = "celery"  # `judge worker` processes taking tasks from a broker (Redis, RabbitMQ)


@dataclass(frozen=True, slots=True)
class WebConfig:
    database_url: str
    problems_dir: Path
    secret_key: str
    # The seed for the hidden generated cases; never sent to a browser or a submission.
    judge_seed: int
    workers: int = 2
    # "sandbox": the runner's warm sandboxed workers (runner.api.Runner);
    # "unsafe-local": the core's judge_source with a plain child process (or `launcher`):
    # no sandbox, so `judge serve` allows it only on a loopback address (web.judging.core_seam).
    judge_backend: str = "sandbox"
    # How each job's device is chosen (JUDGE_DEVICE: auto, cpu or cuda; judge/problem/device.py).
    device: DevicePolicy = DevicePolicy.AUTO
    # "module:callable" giving an unsafe-local launcher; empty: runner.launchers.unsafe_local's.
    launcher: str = ""
    queue: QueueKind = QueueKind.EMBEDDED
    # The Celery broker (redis://... or amqp://...); required when queue is celery.
    broker_url: str = ""
    # Where rate-limit windows are counted: "" = this process's memory (one server process),
    # a redis:// URL = shared by every server process (web.serving.ratelimit).
    ratelimit_url: str = ""
    # A job's claim on its submission, renewed by its judging thread every third of it; a
    # claim past its lease (the worker died or hangs) is taken over by another worker.
    lease_s: float = 30.0
    # A submission queued this long without being claimed is queued again (its message was
    # lost: the broker restarted, or the server died between storing and sending it).
    requeue_after_s: float = 60.0
    # How often a worker looks for both (web.judging.sweeper); idempotent, so every worker may.
    sweep_every_s: float = 10.0
    # The folder holding the generated secrets (and by default the database), kept 0700.
    instance_dir: Path | None = None
    max_request_bytes: int = 256 * 1024
    max_job_attempts: int = 3
    submit_per_user: RateLimit = field(default_factory=lambda: RateLimit(10, 60.0))
    submit_per_ip: RateLimit = field(default_factory=lambda: RateLimit(30, 60.0))
    login_per_user: RateLimit = field(default_factory=lambda: RateLimit(10, 300.0))
    login_per_ip: RateLimit = field(default_factory=lambda: RateLimit(30, 300.0))
    register_per_ip: RateLimit = field(default_factory=lambda: RateLimit(10, 3600.0))
    # Run on the server (torch tier): counted when a run starts (web.judging.runs).
    run_per_user: RateLimit = field(default_factory=lambda: RateLimit(10, 300.0))
    run_per_ip: RateLimit = field(default_factory=lambda: RateLimit(30, 300.0))
    # A quiz's Run (its answers checked at the public points, no account needed): cheap, but
    # it parses and evaluates formulas, so one address cannot ask for it without end.
    quiz_run_per_ip: RateLimit = field(default_factory=lambda: RateLimit(60, 60.0))
    # Where the embedded queue's sandboxed runner lives: a child process of the server, so
    # that the server never loads what judging loads (web/judging/judge_process.py); True
    # keeps it in the server's own process (a benchmark that times the runner's inside).
    runner_in_server: bool = False
    # Submissions of one account judged at once, across every worker (fair judging).
    judging_per_user: int = 1
    # Runs judged at once, in all (one learner holds at most one); each holds one of the
    # judge's workers while it runs. Two, so one learner's run cannot hold every learner's.
    run_slots: int = 2
    # Runs waiting in line for a slot, in all (each learner's one run); past that, refused.
    run_waiting: int = 8
    # Hidden seeds the sandboxed judge keeps ready per problem, their reference answers
    # computed while it is idle, so a submission waits for its own code only
    # (runner.seedstock); 0 computes none ahead.
    ready_seeds: int = 1
    # How widely a speed problem's paired timings (reference / submission per timed case) may
    # spread, as a fraction of their median, and the run still be ranked
    # (JUDGE_SPEED_SPREAD_LIMIT; judge/problem/speed_spec.py). A host that judges beside
    # other work may loosen it; a wider limit ranks noisier scores.
    speed_spread_limit: float = MAX_RELATIVE_SPREAD
    # How long a finished run's report is kept for its page to fetch.
    run_keep_s: float = 600.0
    # Seconds an SSE stream stays open before the client reconnects (it frees a server thread).
    events_max_s: float = 55.0
    # Each open event stream holds one server thread; past this many, clients poll.
    max_event_streams: int = 8
    # ... one user (or a visitor, by address) may hold this many of them ...
    event_streams_per_client: int = 2
    # ... and one client address (an IPv6 /64) this many, whichever accounts it uses.
    event_streams_per_address: int = 4
    # Pause before re-queueing a job whose judge failed (IE), times the attempt number.
    retry_delay_s: float = 0.5
    start_workers: bool = True
    secure_cookies: bool = False
    # COOP/COEP on every response: the page may then share memory with its Pyodide worker,
    # so Stop interrupts Python instead of killing the worker. Safe because every asset is
    # served from this origin (nothing comes from a CDN).
    cross_origin_isolation: bool = True
    # Origins whose pages may call the API (a handbook built with the MkDocs plugin and
    # `platform_url`: web/serving/cors.py, parse_origins below), with a bearer token only.
    cors_origins: tuple[str, ...] = ()
    # werkzeug's method string; tests pick a cheap one, production keeps scrypt.
    password_method: str = "scrypt"

    def with_(self, **changes: object) -> WebConfig:
        return replace(self, **changes)  # type: ignore[arg-type]


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def load_config(instance: Path | None = None, **overrides: object) -> WebConfig:
    """Settings from the environment (JUDGE_*), with secrets kept in the instance folder."""
    instance = Path(os.environ.get("JUDGE_INSTANCE", instance or DEFAULT_INSTANCE))
    private_dir(instance)
    env = os.environ
    config = WebConfig(
        database_url=env.get("JUDGE_DATABASE_URL") or sqlite_url(instance / "judge.sqlite3"),
        problems_dir=Path(env.get("JUDGE_PROBLEMS", REPO_ROOT / "problems")),
        secret_key=env.get("JUDGE_SECRET_KEY") or _instance_secret(instance / "secret_key"),
        judge_seed=int(env.get("JUDGE_SEED") or _instance_secret(instance / "judge_seed", 8), 16),
        workers=_integer(env, "JUDGE_WORKERS", 2),
        judging_per_user=_integer(env, "JUDGE_JUDGING_PER_USER", 1),
        run_slots=_integer(env, "JUDGE_RUN_SLOTS", 2),
        run_waiting=_integer(env, "JUDGE_RUN_WAITING", 8),
        ready_seeds=_integer(env, "JUDGE_READY_SEEDS", 1),
        judge_backend=env.get("JUDGE_BACKEND", "sandbox"),
        device=parse_policy(env.get("JUDGE_DEVICE", "auto")),
        launcher=env.get("JUDGE_LAUNCHER", ""),
        queue=_queue_kind(env.get("JUDGE_QUEUE", QueueKind.EMBEDDED.value)),
        broker_url=env.get("JUDGE_BROKER_URL", ""),
        ratelimit_url=env.get("JUDGE_RATELIMIT_URL", ""),
        lease_s=_seconds(env, "JUDGE_LEASE_S", 30.0),
        requeue_after_s=_seconds(env, "JUDGE_REQUEUE_AFTER_S", 60.0),
        sweep_every_s=_seconds(env, "JUDGE_SWEEP_EVERY_S", 10.0),
        speed_spread_limit=_fraction(env, "JUDGE_SPEED_SPREAD_LIMIT", MAX_RELATIVE_SPREAD),
        instance_dir=instance,
        secure_cookies=env.get("JUDGE_SECURE_COOKIES", "") == "1",
        cors_origins=parse_origins(env.get("JUDGE_CORS_ORIGINS", "")),
    )
    config = config.with_(**overrides) if overrides else config
    check_queue(config)
    return config


def check_queue(config: WebConfig) -> None:
    """Refuse a queue configuration that cannot work, naming the setting to fix."""
    if config.queue is QueueKind.CELERY and not config.broker_url:
        raise ValueError("JUDGE_QUEUE=celery needs JUDGE_BROKER_URL (redis://... or amqp://...)")
    if config.ratelimit_url and not config.ratelimit_url.startswith(("redis://", "rediss://")):
        url = config.ratelimit_url
        raise ValueError(f"JUDGE_RATELIMIT_URL must be a redis:// URL, not {url!r}")
    if config.lease_s < 3 or config.requeue_after_s <= 0 or config.sweep_every_s <= 0:
        raise ValueError("JUDGE_LEASE_S must be at least 3 s; the sweeper's periods above 0")
    if config.judging_per_user < 1:
        raise ValueError("JUDGE_JUDGING_PER_USER must be at least 1")


def _queue_kind(value: str) -> QueueKind:
    try:
        return QueueKind(value)
    except ValueError:
        choices = ", ".join(kind.value for kind in QueueKind)
        raise ValueError(f"JUDGE_QUEUE must be one of {choices}, not {value!r}") from None


def _seconds(env: os._Environ[str], name: str, default: float) -> float:
    raw = env.get(name, "")
    try:
        return float(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None


def _integer(env: os._Environ[str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    try:
        return int(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None


def _fraction(env: os._Environ[str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    try:
        return check_spread_limit(float(raw) if raw else default)
    except ValueError:
        raise ValueError(f"{name} must be a fraction above 0 and at most 1, not {raw!r}") from None


# What a browser sends as an Origin: a lower-case scheme, an ASCII host (a name in punycode,
# an IPv4 address, or an IPv6 one in brackets) and a port only when it is not the scheme's.
_ORIGIN = re.compile(r"(https?)://([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def parse_origins(raw: str) -> tuple[str, ...]:
    """JUDGE_CORS_ORIGINS: comma-separated origins, each as a browser writes it in its Origin
    header (scheme://host[:port]); ValueError naming the first that is not one, since one that
    could never match would be ignored without a word (a path, a wildcard, a default port)."""
    origins = []
    for item in (part.strip().removesuffix("/") for part in raw.split(",")):
        if not item:
            continue
        match = _ORIGIN.fullmatch(item)
        port = match.group(3) if match else None
        if match is None or (port is not None and not 0 < int(port) < 65536):
            raise ValueError(
                f"JUDGE_CORS_ORIGINS holds {item!r}: each must be an origin like "
                "https://handbook.example.org (lower-case scheme and host, and a port, only)"
            )
        if port == _DEFAULT_PORTS[match.group(1)]:
            raise ValueError(
                f"JUDGE_CORS_ORIGINS holds {item!r}: a browser leaves out the scheme's own "
                f"port; write {match.group(1)}://{match.group(2)}"
            )
        origins.append(item)
    return tuple(origins)


def _instance_secret(path: Path, nbytes: int = 32) -> str:
    """A random hex secret created on first start and kept, so restarts keep sessions valid.

    Processes starting at once on a fresh instance folder (a server and its workers) must
    all read the same secret: it is written to a temporary file and linked into place, so
    it appears whole or not at all, and the one that loses the race reads the winner's."""
    if not path.is_file():
        value = secrets.token_hex(nbytes)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(value)
        try:
            os.link(temporary, path)  # fails if another process's secret is there already
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    private_file(path)  # one written by an older version, or copied in, may be 0644
    return path.read_text(encoding="ascii").strip()
