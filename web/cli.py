"""`judge serve` (the platform under waitress) and `judge submit` (a file to a server,
waiting for the verdict). `submit` uses only the standard library."""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import logging
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from judge.verdict import Verdict
from web.store.status import SubmissionStatus

EXIT_AC, EXIT_REJECTED, EXIT_ERROR = 0, 1, 2


def serve(argv: list[str] | None = None) -> int:
    """Run migrations, start the worker pool and serve with waitress (not the dev server),
    connections shared fairly between client addresses (web.serving.server)."""
    # Imported here: waitress and Flask are for serving, and `submit` uses only the stdlib.
    from web.serving.server import (
        DEFAULT_CONNECTIONS,
        DEFAULT_PER_ADDRESS,
        ServerLimits,
        make_server,
    )

    parser = argparse.ArgumentParser(prog="judge serve", description=serve.__doc__)
    parser.add_argument("--host", default=os.environ.get("JUDGE_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("JUDGE_PORT", "8000")))
    parser.add_argument("--threads", type=int, default=16, help="HTTP threads (default 16)")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_CONNECTIONS,
        help=f"open connections in all (default {DEFAULT_CONNECTIONS})",
    )
    parser.add_argument(
        "--connections-per-address",
        type=int,
        default=DEFAULT_PER_ADDRESS,
        help=f"open connections per client address (default {DEFAULT_PER_ADDRESS})",
    )
    parser.add_argument("--workers", type=int, help="judging threads (default $JUDGE_WORKERS or 2)")
    parser.add_argument("--database-url", help="default: sqlite in the instance folder")
    parser.add_argument("--problems", type=Path, help="problems folder (default: ./problems)")
    parser.add_argument("--instance", type=Path, help="folder for the database and secrets")
    parser.add_argument("--make-admin", metavar="USERNAME", help="grant admin to this user first")
    parser.add_argument(
        "--unsafe-local-judge",
        action="store_true",
        help="judge without the sandbox (JUDGE_BACKEND=unsafe-local); loopback addresses only",
    )
    args = parser.parse_args(argv)

    from web import create_app
    from web.config import load_config
    from web.judging.core_seam import UNSAFE_LOCAL

    overrides: dict[str, Any] = {}
    if args.workers is not None:
        overrides["workers"] = args.workers
    if args.database_url:
        overrides["database_url"] = args.database_url
    if args.problems:
        overrides["problems_dir"] = args.problems.resolve()
    if args.unsafe_local_judge:
        overrides["judge_backend"] = UNSAFE_LOCAL
    try:
        config = load_config(args.instance, **overrides)
        limits = ServerLimits(
            args.max_connections, args.connections_per_address, config.max_request_bytes
        )
    except ValueError as exc:  # a setting that cannot work (JUDGE_QUEUE, JUDGE_LEASE_S...)
        print(f"judge serve: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if config.judge_backend == UNSAFE_LOCAL:
        if not is_loopback(args.host):
            print(UNSAFE_HOST.format(host=args.host), file=sys.stderr)
            return EXIT_ERROR
        print(UNSAFE_AS_ROOT if os.geteuid() == 0 else UNSAFE_AS_USER, file=sys.stderr, flush=True)
    _log_to_stderr()
    try:
        app = create_app(config)
    except (ValueError, PermissionError) as exc:
        print(f"judge serve: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.make_admin and not _grant_admin(app, args.make_admin):
        app.extensions["judge_platform"].close()
        print(f"judge serve: no user {args.make_admin!r} to make admin", file=sys.stderr)
        return EXIT_ERROR
    server = make_server(app, args.host, args.port, args.threads, limits)
    print(f"serving on http://{args.host}:{server.effective_port}/", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: drain as Ctrl-C does
    # Ctrl-C too, set here: a process started in the background of a non-interactive shell
    # inherits SIGINT ignored, and Python then installs no handler of its own (a CI job's
    # server hung on SIGINT that way).
    signal.signal(signal.SIGINT, _interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends us at once
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        server.close()
        app.extensions["judge_platform"].close()
    return 0


UNSAFE_HOST = (
    "judge serve: the unsafe-local judge runs submitted code without a sandbox; it serves "
    "only on a loopback address (127.0.0.1, ::1, localhost), not {host!r}. Use the "
    "sandbox backend (the default) to serve other machines."
)
UNSAFE_AS_ROOT = (
    "judge serve: WARNING: judging without a sandbox (unsafe-local). Submissions run as "
    "the judge-sandbox user, with this machine's network and file system; the instance "
    "and problems folders are made unreadable to it. For your own machine only."
)
UNSAFE_AS_USER = (
    "judge serve: WARNING: judging without a sandbox (unsafe-local). Submissions run as "
    "you: they can read the secret key, the judge seed, the database and every "
    "reference.py. For your own code on your own machine only."
)


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or `localhost`; a name that could resolve elsewhere is not."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _log_to_stderr() -> None:
    """The app's messages (the access log `web.access` included) at INFO, others' warnings."""
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("web").setLevel(logging.INFO)


def _grant_admin(app: Any, username: str) -> bool:
    from sqlalchemy import update

    from web.store.db import changed, transaction
    from web.store.models import User

    state = app.extensions["judge_platform"]
    with transaction(state.sessions) as db:
        granted = changed(db, update(User).where(User.username == username).values(is_admin=True))
    return granted == 1


def worker(argv: list[str] | None = None) -> int:
    """Judge submissions from the Celery queues (JUDGE_BROKER_URL), writing verdicts to the
    database (JUDGE_DATABASE_URL); stop with SIGTERM or Ctrl-C (running jobs finish)."""
    parser = argparse.ArgumentParser(prog="judge worker", description=worker.__doc__)
    parser.add_argument(
        "--queues", default="cpu", help="comma-separated: cpu, gpu (gpu needs an NVIDIA GPU)"
    )
    parser.add_argument(
        "--concurrency", type=int, help="jobs at once (default $JUDGE_WORKERS or 2)"
    )
    parser.add_argument("--name", default="", help="this worker's name (default queues-pid@host)")
    parser.add_argument("--broker-url", help="default: $JUDGE_BROKER_URL")
    parser.add_argument("--database-url", help="default: $JUDGE_DATABASE_URL")
    parser.add_argument("--problems", type=Path, help="problems folder (default: ./problems)")
    parser.add_argument("--instance", type=Path, help="folder holding the judge's secret seed")
    parser.add_argument(
        "--unsafe-local-judge",
        action="store_true",
        help="judge without the sandbox (development only: submissions run as plain processes)",
    )
    args = parser.parse_args(argv)

    from web.config import QueueKind, load_config
    from web.judging.celery_worker import parse_capabilities, run_worker
    from web.judging.core_seam import UNSAFE_LOCAL

    overrides: dict[str, Any] = {"queue": QueueKind.CELERY}
    for key in ("broker_url", "database_url"):
        if getattr(args, key):
            overrides[key] = getattr(args, key)
    if args.problems:
        overrides["problems_dir"] = args.problems.resolve()
    if args.unsafe_local_judge:
        overrides["judge_backend"] = UNSAFE_LOCAL
    if args.concurrency is not None and args.concurrency < 1:
        print("judge worker: --concurrency must be at least 1", file=sys.stderr)
        return EXIT_ERROR
    try:
        capabilities = parse_capabilities(args.queues)
        config = load_config(args.instance, **overrides)
    except ValueError as exc:
        print(f"judge worker: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if config.judge_backend == UNSAFE_LOCAL:
        print(UNSAFE_WORKER, file=sys.stderr, flush=True)
    _log_to_stderr()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Celery installs its own next
    concurrency = args.concurrency or config.workers
    try:
        return run_worker(config, capabilities, concurrency, args.name)
    except (ValueError, PermissionError) as exc:
        print(f"judge worker: {exc}", file=sys.stderr)
        return EXIT_ERROR


UNSAFE_WORKER = (
    "judge worker: WARNING: judging without a sandbox (unsafe-local). Submitted code runs "
    "as a plain process on this machine; use it only for development."
)


def submit(argv: list[str] | None = None) -> int:
    """Submit FILE for SLUG to a judge server and wait for the verdict."""
    parser = argparse.ArgumentParser(prog="judge submit", description=submit.__doc__)
    parser.add_argument("slug")
    parser.add_argument("file", type=Path)
    parser.add_argument("--server", default=os.environ.get("JUDGE_SERVER"), help="base URL")
    parser.add_argument("--token", default=os.environ.get("JUDGE_TOKEN"), help="API token")
    parser.add_argument("--user", help="log in as this user (password from $JUDGE_PASSWORD)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    try:
        return _submit(args)
    except SubmitError as exc:
        print(f"judge submit: {exc}", file=sys.stderr)
        return EXIT_ERROR


class SubmitError(Exception):
    """A problem with the command line, the file or the server; the message is complete."""


def _submit(args: argparse.Namespace) -> int:
    if not args.server:
        raise SubmitError("--server URL is required (or set JUDGE_SERVER)")
    client = ApiClient(args.server.rstrip("/"))
    code = _read_code(args.file)
    client.token = args.token or _token_from_password(client, args.user)
    created = client.call("POST", "/api/submissions", {"problem": args.slug, "code": code})
    print(f"submitted #{created['id']}; waiting for the verdict...", file=sys.stderr)
    result = wait_for_verdict(client, str(created["url"]), args.timeout)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else _describe(result))
    return EXIT_AC if result.get("verdict") == Verdict.AC else EXIT_REJECTED


def _read_code(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise SubmitError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise SubmitError(f"{path} is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _token_from_password(client: ApiClient, user: str | None) -> str:
    if not user:
        raise SubmitError("give --token (or $JUDGE_TOKEN), or --user to log in")
    password = os.environ.get("JUDGE_PASSWORD") or getpass.getpass(f"password for {user}: ")
    return str(client.call("POST", "/api/token", {"username": user, "password": password})["token"])


def wait_for_verdict(client: ApiClient, url: str, timeout: float) -> dict[str, Any]:
    """Poll a submission's URL until it is judged; SubmitError after `timeout` seconds."""
    deadline, delay = time.monotonic() + timeout, 0.2
    while True:
        result = client.call("GET", url)
        if result.get("status") == SubmissionStatus.DONE:
            return result
        if time.monotonic() > deadline:
            raise SubmitError(f"no verdict after {timeout:g} s (status {result.get('status')})")
        time.sleep(delay)
        delay = min(delay * 1.5, 2.0)


def _describe(result: dict[str, Any]) -> str:
    passed, total, points = result.get("passed", 0), result.get("total", 0), result.get("points", 0)
    lines = [
        f"#{result['id']} {result['problem']}: {result['verdict']} "
        f"({passed}/{total} cases, {points} points)"
    ]
    error = result.get("compile_error")
    if error:
        where = f" (line {error['line']})" if error.get("line") else ""
        lines.append(f"  compile error{where}: {error.get('message', '')}")
    for case in result.get("cases", []):
        if case.get("verdict") != Verdict.AC:
            kind = "public" if case.get("public") else "hidden"
            lines.append(
                f"  {case['name']} [{kind}]: {case.get('verdict')} {case.get('message', '')}"
            )
    return "\n".join(lines)


class ApiClient:
    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return dict(json.load(response))
        except urllib.error.HTTPError as exc:
            raise SubmitError(_error_message(exc)) from None
        except (urllib.error.URLError, OSError) as exc:
            raise SubmitError(f"cannot reach {self.base}: {exc}") from None


def _error_message(exc: urllib.error.HTTPError) -> str:
    try:
        error = json.load(exc)["error"]
        return f"{error['message']} (HTTP {exc.code} {error['code']})"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {exc.code} {exc.reason}"


def main(argv: list[str] | None = None) -> int:
    """`python -m web.cli serve|submit ...`: the same as `judge serve|submit ...`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"serve": serve, "submit": submit}
    if not argv or argv[0] not in commands:
        print("usage: python -m web.cli {serve,submit} ...", file=sys.stderr)
        return EXIT_ERROR
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
