"""Leaderboard and submission-list response times with 100,000 stored submissions from
5,000 users (generated directly in SQLite), through the Flask test client and through
waitress over HTTP. Prints p50/p99 per endpoint side by side.

    python bench/bench_web.py [--users 5000] [--submissions 100000] [--requests 300]
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sqlalchemy import insert, select  # noqa: E402

from devtools.threaded_server import serve_in_thread  # noqa: E402
from web import create_app  # noqa: E402
from web.boards import standings  # noqa: E402
from web.config import WebConfig, sqlite_url  # noqa: E402
from web.store.db import transaction  # noqa: E402
from web.store.models import Submission, User  # noqa: E402

SOURCE_PROBLEM = REPO / "problems" / "kv-bytes-per-token"
SLUGS = [f"bench-{i:02d}" for i in range(10)]
SPEED_SLUG = SLUGS[-1]
VERDICTS = ["AC"] * 40 + ["WA"] * 35 + ["TLE"] * 10 + ["RE"] * 10 + ["CE"] * 5
# Rows as large as real ones: about 1 KB of code and a 40-case report.
CODE = "def kv_bytes_per_token(config, kv_dtype):\n" + "    # explain the layout\n" * 45
REPORT = json.dumps(
    {
        "verdict": "WA",
        "cases": [
            {"name": f"random-{i}", "public": i < 6, "verdict": "AC", "time_ms": 0.1, "message": ""}
            for i in range(40)
        ],
        "stdout": "",
        "stderr": "",
    }
)


def make_problems(root: Path) -> None:
    """Ten copies of a real problem under bench slugs (the board only needs the slugs)."""
    for slug in SLUGS:
        folder = root / slug
        shutil.copytree(SOURCE_PROBLEM, folder)
        toml = (folder / "problem.toml").read_text(encoding="utf-8")
        old = f'slug = "{SOURCE_PROBLEM.name}"'
        (folder / "problem.toml").write_text(toml.replace(old, f'slug = "{slug}"'), "utf-8")


def fill(app_state: object, users: int, submissions: int, seed: int = 7) -> tuple[float, float]:
    """Insert users and judged submissions in bulk, then fold them into the standings the
    way the workers do (standings.refresh per user and problem). Returns the seconds spent
    inserting and the mean seconds per refresh."""
    rng = random.Random(seed)
    sessions = app_state.sessions  # type: ignore[attr-defined]
    start = time.perf_counter()
    with transaction(sessions) as db:
        db.execute(
            insert(User),
            [
                {"username": f"user{i:05d}", "username_key": f"user{i:05d}", "password_hash": "x"}
                for i in range(users)
            ],
        )
        ids = list(db.scalars(select(User.id)))
        t0 = datetime(2026, 11, 1)
        rows = []
        for n in range(submissions):
            verdict = rng.choice(VERDICTS)
            slug = rng.choice(SLUGS)
            rows.append(_row(rng, rng.choice(ids), slug, verdict, t0 + timedelta(seconds=n * 20)))
        db.execute(insert(Submission), rows)
    inserted = time.perf_counter() - start
    pairs = {(r["user_id"], r["problem_slug"]) for r in rows}
    by_user: dict[int, list[str]] = {}
    for user_id, slug in pairs:
        by_user.setdefault(user_id, []).append(slug)
    start = time.perf_counter()
    for user_id, slugs in by_user.items():
        with transaction(sessions) as db:
            for slug in slugs:
                standings.refresh(db, user_id, slug)
    return inserted, (time.perf_counter() - start) / len(pairs)


def _row(rng: random.Random, user_id: int, slug: str, verdict: str, at: datetime) -> dict:
    speed = slug == SPEED_SLUG and verdict == "AC"
    return {
        "user_id": user_id,
        "problem_slug": slug,
        "code": CODE,
        "status": "done",
        "verdict": verdict,
        "points": 100 if verdict == "AC" else 0,
        "passed": 5 if verdict == "AC" else 2,
        "total": 5,
        "time_ms": rng.uniform(5, 500),
        "report_json": REPORT,
        "metric": rng.uniform(50, 400) if speed else None,
        "metric_spread": rng.uniform(0.5, 5) if speed else None,
        "hardware": "Intel Xeon (2 cores)" if speed else None,
        "attempts": 1,
        "created_at": at,
        "judged_at": at + timedelta(seconds=1),
    }


def time_refresh(app_state: object, samples: int, seed: int = 11) -> tuple[float, float]:
    """p50/p99 of one standings.refresh (the work each stored verdict adds) on the filled
    database, in a transaction that is rolled back so the data stays as generated."""
    rng = random.Random(seed)
    sessions = app_state.sessions  # type: ignore[attr-defined]
    times = []
    with sessions() as db:
        users = list(db.scalars(select(User.id)))
        for _ in range(samples):
            user_id, slug = rng.choice(users), rng.choice(SLUGS)
            start = time.perf_counter()
            standings.refresh(db, user_id, slug)
            times.append(time.perf_counter() - start)
        db.rollback()
    return percentiles(times)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


def timed(get: Callable[[str], int], url: str, requests: int) -> tuple[float, float]:
    for _ in range(5):  # warm caches and connections
        assert get(url) == 200, url
    samples = []
    for _ in range(requests):
        start = time.perf_counter()
        status = get(url)
        samples.append(time.perf_counter() - start)
        assert status == 200, (url, status)
    return percentiles(samples)


def http_getter(port: int) -> Callable[[str], int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def get(url: str) -> int:
        connection.request("GET", url)
        response = connection.getresponse()
        response.read()
        return response.status

    return get


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--submissions", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--db", type=Path, help="keep the filled database here and reuse it")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-web-"))
    database = args.db or tmp / "judge.sqlite3"
    reuse = database.is_file()
    try:
        make_problems(tmp / "problems")
        config = WebConfig(
            database_url=sqlite_url(database),
            problems_dir=tmp / "problems",
            secret_key="bench",
            judge_seed=1,
            start_workers=False,
            judge_backend="unsafe-local",
        )
        app = create_app(config)
        state = app.extensions["judge_platform"]
        if reuse:
            print(f"reusing {database}")
        else:
            inserted, per_refresh = fill(state, args.users, args.submissions)
            print(
                f"inserted {args.users:,} users and {args.submissions:,} submissions in"
                f" {inserted:.1f} s; standings.refresh (run once per verdict by a worker)"
                f" took {per_refresh * 1e3:.2f} ms per user and problem"
            )
        refresh = time_refresh(state, args.requests)
        print(f"standings.refresh per verdict: p50 {refresh[0]:.2f} ms, p99 {refresh[1]:.2f} ms")
        report(app, args.requests)
        state.engine.dispose()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def report(app: object, requests: int) -> None:
    urls = [
        "/api/leaderboard",
        "/api/leaderboard?offset=2500",
        f"/api/leaderboard/{SLUGS[0]}",
        f"/api/leaderboard/{SPEED_SLUG}",
        "/api/submissions",
        "/api/submissions?user=user02500",
        f"/api/submissions?problem={SLUGS[3]}",
        f"/api/submissions?problem={SLUGS[3]}&user=user02500",
        "/leaderboard",
    ]
    client = app.test_client()  # type: ignore[attr-defined]
    with serve_in_thread(app, name="bench-web") as server:
        over_http = http_getter(server.effective_port)
        print(f"{requests} requests each; times in ms")
        print(f"{'GET':<48} {'client p50':>10} {'p99':>7} {'http p50':>9} {'p99':>7}")
        for url in urls:
            direct = timed(lambda u: client.get(u).status_code, url, requests)
            wire = timed(over_http, url, requests)
            print(f"{url:<48} {direct[0]:10.2f} {direct[1]:7.2f} {wire[0]:9.2f} {wire[1]:7.2f}")


if __name__ == "__main__":
    sys.exit(main())
