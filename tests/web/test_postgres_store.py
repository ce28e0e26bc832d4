"""PostgreSQL as the store (issue 13), on a real PostgreSQL 15 server (tests/services.py),
each test on a fresh database: the migrations from empty to head, several processes
upgrading at once, the platform end to end, and two verdicts for one user stored at
once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from problem_factory import GOOD, WRONG
from sqlalchemy import Engine, inspect, select, text, update
from web_helpers import make_config, make_user, state, submit, wait_judged

from judge.verdict import Verdict
from web import create_app
from web.boards import standings
from web.store import migrate
from web.store.db import make_engine, make_sessions, transaction
from web.store.models import Base, ProblemResult, Standing, Submission, SubmissionStatus, User


def head_revision() -> str:
    head = ScriptDirectory.from_config(migrate.alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def schema_drift(engine: Engine) -> list[object]:
    """What the migrated schema lacks or has beyond the models (alembic's autogenerate)."""
    with engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def test_the_migrations_build_the_models_schema_from_empty_on_postgresql(
    postgres_url: str,
) -> None:
    engine = make_engine(postgres_url)
    try:
        assert inspect(engine).get_table_names() == []
        migrate.upgrade(postgres_url)
        assert current_revision(engine) == head_revision()
        assert set(inspect(engine).get_table_names()) >= set(Base.metadata.tables)
        assert schema_drift(engine) == []
        migrate.upgrade(postgres_url)  # a second start finds nothing to do
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


UPGRADER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from web.store import migrate
    url, ready, go = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    ready.touch()  # imported: the upgrade itself is what should overlap
    deadline = time.monotonic() + 120
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    migrate.upgrade(url)
    """
)


def test_processes_upgrading_one_database_at_once_all_start(
    postgres_url: str, tmp_path: Path
) -> None:
    go, ready = tmp_path / "go", [tmp_path / f"ready-{n}" for n in range(3)]
    upgraders = [
        subprocess.Popen(
            [sys.executable, "-c", UPGRADER, postgres_url, str(flag), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for flag in ready
    ]
    deadline = time.monotonic() + 120
    while not all(flag.exists() for flag in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()  # all three at once
    outputs = [upgrader.communicate(timeout=300)[0] for upgrader in upgraders]
    assert [u.returncode for u in upgraders] == [0, 0, 0], "\n".join(outputs)
    engine = make_engine(postgres_url)
    try:
        assert current_revision(engine) == head_revision()
        assert schema_drift(engine) == []
    finally:
        engine.dispose()


def test_an_upgrade_waits_while_another_process_holds_the_migration_lock(
    postgres_url: str,
) -> None:
    engine = make_engine(postgres_url)
    upgraded = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            migrate.upgrade(postgres_url)
            upgraded.set()
        except BaseException as exc:
            failed.append(exc)

    try:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as holder:
            holder.execute(text("SELECT pg_advisory_lock(:k)"), {"k": migrate.MIGRATION_LOCK})
            upgrader = threading.Thread(target=run, daemon=True)
            upgrader.start()
            waiting = text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            )
            deadline = time.monotonic() + 60
            while holder.execute(waiting).scalar() == 0:  # the upgrader is queued on the lock
                assert time.monotonic() < deadline and not failed, failed
                time.sleep(0.02)
            assert not upgraded.is_set()
            assert inspect(engine).get_table_names() == []
            holder.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": migrate.MIGRATION_LOCK})
        upgrader.join(120)
        assert upgraded.is_set(), failed
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_the_platform_judges_and_ranks_on_postgresql(
    postgres_url: str, tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    config = make_config(tmp_path, db_template, problems_root, database_url=postgres_url)
    app = create_app(config)  # migrates the empty database
    try:
        client = app.test_client()
        ada, bob = make_user(client, "ada"), make_user(client, "bob")
        wrong = submit(client, bob, WRONG)
        good = submit(client, ada, GOOD)
        wait_judged(app)
        view = client.get(f"/api/submissions/{good}", headers=ada.auth).json
        assert view is not None
        assert (view["verdict"], view["passed"], view["points"]) == ("AC", 5, 100)
        bad = client.get(f"/api/submissions/{wrong}", headers=bob.auth).json
        assert bad is not None and bad["verdict"] == "WA"
        board = client.get("/api/leaderboard").json
        assert board is not None
        assert [(e["user"], e["points"]) for e in board["entries"]] == [("ada", 100), ("bob", 0)]
        per_problem = client.get("/api/leaderboard/add-two").json
        assert per_problem is not None
        assert [e["user"] for e in per_problem["entries"]] == ["ada", "bob"]
        listed = client.get("/api/submissions?user=ada").json
        assert listed is not None and [s["id"] for s in listed["submissions"]] == [good]
        for page in ("/", "/leaderboard", f"/submissions/{good}"):
            response = client.get(page, headers=ada.auth)
            assert response.status_code == 200, page
    finally:
        state(app).close()


def stored_at_once(sessions, user_id: int, outcomes: list[tuple[int, Verdict, int]]) -> None:  # type: ignore[no-untyped-def]
    """Store each (submission, verdict, points) in a thread of its own, as two workers
    would: every thread writes its verdict, all wait until each has written (none has
    committed), then each folds its verdict into the standings and commits."""
    written = threading.Barrier(len(outcomes), timeout=60)
    failed: list[BaseException] = []

    def store(submission_id: int, verdict: Verdict, points: int) -> None:
        try:
            with transaction(sessions) as db:
                db.execute(
                    update(Submission)
                    .where(Submission.id == submission_id)
                    .values(status=SubmissionStatus.DONE, verdict=verdict, points=points)
                )
                written.wait()  # the others' verdicts are written and not committed
                standings.refresh(db, user_id, "add-two")
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=store, args=outcome) for outcome in outcomes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failed, failed


def test_verdicts_for_one_user_stored_at_once_leave_the_standings_right(
    postgres_url: str,
) -> None:
    """Without the user's row lock in standings.refresh, each transaction recomputes from
    what it can see, which lacks the other's uncommitted verdict: the last to commit
    would leave one attempt counted (or the second INSERT of the result would fail)."""
    migrate.upgrade(postgres_url)
    engine = make_engine(postgres_url)
    sessions = make_sessions(engine)
    try:
        for round_ in range(5):
            with transaction(sessions) as db:
                user = User(username=f"u{round_}", username_key=f"u{round_}", password_hash="-")
                db.add(user)
                db.flush()
                subs = [
                    Submission(
                        user_id=user.id,
                        problem_slug="add-two",
                        code="pass",
                        status=SubmissionStatus.RUNNING,
                    )
                    for _ in range(2)
                ]
                db.add_all(subs)
                db.flush()
                user_id, (first, second) = user.id, [s.id for s in subs]
            # The older one is wrong, the newer accepted: one wrong try before solving.
            stored_at_once(sessions, user_id, [(first, Verdict.WA, 0), (second, Verdict.AC, 100)])
            with sessions() as db:
                result = db.execute(
                    select(ProblemResult).where(ProblemResult.user_id == user_id)
                ).scalar_one()
                standing = db.get(Standing, user_id)
            assert (result.attempts, result.best_points, result.solved) == (2, 100, True)
            assert result.wrong_before_ac == 1
            assert standing is not None
            assert (standing.points, standing.solved, standing.penalty) == (100, 1, 1)
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["wrong then right", "right then wrong"])
def test_the_embedded_queue_on_postgresql_stores_concurrent_verdicts_once_each(
    kind: str, postgres_url: str, tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    """Two judging threads, one user, two submissions judged at the same time."""
    config = make_config(tmp_path, db_template, problems_root, database_url=postgres_url, workers=2)
    app = create_app(config)
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        codes = [WRONG, GOOD] if kind == "wrong then right" else [GOOD, WRONG]
        for code in codes:
            submit(client, ada, code)
        wait_judged(app)
        me = client.get("/api/leaderboard").json
        assert me is not None
        (entry,) = me["entries"]
        assert (entry["user"], entry["points"], entry["solved"]) == ("ada", 100, 1)
        assert entry["penalty"] == (1 if kind == "wrong then right" else 0)
    finally:
        state(app).close()


def test_a_database_that_goes_away_is_a_503_to_retry_and_service_resumes_after(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    from devtools.local_services import PostgresServer, missing_binaries

    if missing_binaries(["postgres"]):
        pytest.skip(f"no local PostgreSQL: {missing_binaries(['postgres'])}")
    server = PostgresServer(tmp_path / "pg", durable=False)
    server.start()
    config = make_config(tmp_path, db_template, problems_root, database_url=server.url)
    app = create_app(config)
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        server.stop()
        for path in ("/api/problems", "/api/submissions/1"):
            down = client.get(path, headers=ada.auth)
            assert down.status_code == 503, down.json
            assert down.json["error"]["code"] == "store_unavailable"
            assert down.headers["Retry-After"] == "5"
        page = client.get("/", headers={"Accept-Language": "zh"})
        assert page.status_code == 503 and "数据库" in page.get_data(as_text=True)
        server.start()
        assert client.get("/api/problems", headers=ada.auth).status_code == 200
    finally:
        state(app).close()
        server.destroy()
