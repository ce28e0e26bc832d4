"""The platform on PostgreSQL 15: a throwaway cluster in a temporary folder, the Alembic
migrations, a submission judged end to end, and both leaderboards."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_helpers import make_config, make_user, state, submit, wait_judged
from web_problem_fixture import GOOD, WRONG

from web import create_app

PG_BIN = Path("/usr/lib/postgresql/15/bin")
NEEDED = ("initdb", "pg_ctl", "postgres")


def _missing() -> str | None:
    absent = [name for name in NEEDED if not (PG_BIN / name).is_file()]
    if absent:
        return f"PostgreSQL 15 binaries not found in {PG_BIN}: {', '.join(absent)}"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
    return None


def _as_server_user(argv: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root; drop to the postgres account.
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


@pytest.fixture
def postgres_url() -> Iterator[str]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    root = Path(tempfile.mkdtemp(prefix="judge-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data, port = root / "data", 5400 + os.getpid() % 500
    run = lambda argv: subprocess.run(  # noqa: E731
        _as_server_user(argv), check=True, capture_output=True, timeout=60
    )
    run([str(PG_BIN / "initdb"), "-D", str(data), "-U", "judge", "-A", "trust", "-E", "UTF8"])
    options = f"-k {root} -p {port} -c listen_addresses='' -c fsync=off"
    log = root / "server.log"
    run([str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "start"])
    try:
        yield f"postgresql://judge@/postgres?host={root}&port={port}"
    finally:
        run([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def test_submission_round_trip_on_postgresql(
    postgres_url: str, tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    config = make_config(tmp_path, db_template, problems_root).with_(database_url=postgres_url)
    app = create_app(config)  # runs the migrations on the empty database
    try:
        client = app.test_client()
        ada, bob = make_user(client, "ada"), make_user(client, "bob")
        submit(client, bob, WRONG)
        sid = submit(client, ada, GOOD)
        wait_judged(app)
        view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
        assert (view["status"], view["verdict"], view["passed"]) == ("done", "AC", 5)
        entries = client.get("/api/leaderboard").json["entries"]
        assert [(e["user"], e["points"]) for e in entries] == [("ada", 100), ("bob", 0)]
        per_problem = client.get("/api/leaderboard/add-two").json
        assert [e["user"] for e in per_problem["entries"]] == ["ada", "bob"]
        assert per_problem["speed"] == []
        listed = client.get("/api/submissions?user=ada").json["submissions"]
        assert [s["id"] for s in listed] == [sid]
    finally:
        state(app).close()
