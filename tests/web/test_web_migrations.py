"""Alembic migrations: they build the schema the models describe, and they go back down."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from web.config import sqlite_url
from web.store import migrate
from web.store.db import make_engine
from web.store.models import Base, Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_migrated_schema_matches_the_models(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert diff == []


def test_migrations_upgrade_twice_and_downgrade_to_nothing(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url)
    migrate.upgrade(url)  # idempotent: start-up runs it every time
    engine = make_engine(url)
    assert {"users", "submissions", "standings"} <= set(inspect(engine).get_table_names())
    command.downgrade(migrate.alembic_config(url), "base")
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    engine.dispose()


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path / "judge.sqlite3"))
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_upgrade_to_0002_fills_each_users_fastest_run(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0001")
    engine = make_engine(url)
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        run("INSERT INTO users VALUES (1, 'ada', 'x', 0, '2026-11-01 00:00:00')")
        for sid, verdict, metric in ((1, "AC", 120.0), (2, "AC", 180.0), (3, "WA", 999.0)):
            run(
                "INSERT INTO submissions (id, user_id, problem_slug, code, status, verdict,"
                " points, passed, total, attempts, created_at, metric)"
                f" VALUES ({sid}, 1, 'p', 'x', 'done', '{verdict}', 0, 0, 0, 1,"
                f" '2026-11-01 00:00:00', {metric})"
            )
        run("INSERT INTO problem_results VALUES (1, 'p', 100, 1, 0, 3, '2026-11-01 00:00:00')")
    migrate.upgrade(url)
    with engine.connect() as connection:
        row = connection.exec_driver_sql(
            "SELECT best_metric, best_metric_submission_id FROM problem_results"
        ).one()
    engine.dispose()
    assert tuple(row) == (180.0, 2)


def test_upgrade_to_0014_puts_each_stored_speed_on_its_device_classs_board(tmp_path: Path) -> None:
    """Existing rows are CPU runs, except one whose stored hardware names CUDA; each
    user's fastest run per device class becomes their row on that board."""
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0013")
    engine = make_engine(url)
    runs = (  # id, verdict, metric, hardware
        (1, "AC", 120.0, "AMD EPYC · 1 thread"),
        (2, "AC", 180.0, "AMD EPYC · 1 thread"),
        (3, "WA", 999.0, "AMD EPYC · 1 thread"),
        (4, "AC", 5000.0, "cuda (NVIDIA H200)"),
    )
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        run(
            "INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at,"
            " session_generation) VALUES (1, 'ada', 'ada', 'x', 0, '2026-11-01 00:00:00', 0)"
        )
        for sid, verdict, metric, hardware in runs:
            run(
                "INSERT INTO submissions (id, user_id, problem_slug, code, status, verdict,"
                " points, passed, total, attempts, created_at, metric, hardware)"
                f" VALUES ({sid}, 1, 'p', 'x', 'done', '{verdict}', 0, 0, 0, 1,"
                f" '2026-11-01 00:00:00', {metric}, '{hardware}')"
            )
    migrate.upgrade(url)
    with engine.connect() as connection:
        classes = connection.exec_driver_sql(
            "SELECT id, device_class FROM submissions ORDER BY id"
        ).all()
        bests = connection.exec_driver_sql(
            "SELECT device_class, best_metric, submission_id FROM speed_bests ORDER BY 1"
        ).all()
    engine.dispose()
    assert [c for _, c in classes] == ["cpu", "cpu", "cpu", "gpu:NVIDIA H200"]
    assert [tuple(b) for b in bests] == [("cpu", 180.0, 2), ("gpu:NVIDIA H200", 5000.0, 4)]


def test_upgrade_to_0004_keeps_every_account_and_what_hangs_off_it(tmp_path: Path) -> None:
    """Names that are one name now ("ada" and "Ada") both keep working, and nothing that
    cascades from `users` is lost: a batch rebuild of the table on SQLite, with foreign
    keys on, would have deleted every submission and standing."""
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0003")
    engine = make_engine(url)
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        for uid, name in ((1, "ada"), (2, "Ada"), (3, "bob\n")):
            run(f"INSERT INTO users VALUES ({uid}, '{name}', 'x', 0, '2026-11-01 00:00:00')")
        run(
            "INSERT INTO submissions (id, user_id, problem_slug, code, status, points, passed,"
            " total, attempts, created_at) VALUES (1, 2, 'p', 'x', 'done', 0, 0, 0, 1,"
            " '2026-11-01 00:00:00')"
        )
        run("INSERT INTO standings VALUES (2, 100, 1, 0, '2026-11-01 00:00:00')")
        run("INSERT INTO api_tokens VALUES (1, 2, 'digest', '2026-11-01 00:00:00')")
    migrate.upgrade(url)
    with engine.connect() as connection:
        run = connection.exec_driver_sql
        keys = run("SELECT id, username_key, session_generation FROM users ORDER BY id").all()
        kept = [run(f"SELECT count(*) FROM {t}").scalar() for t in ("submissions", "standings")]
        expires = run("SELECT expires_at FROM api_tokens").scalar()
    engine.dispose()
    assert [tuple(row) for row in keys] == [(1, "ada", 0), (2, "ada#2", 0), (3, "bob\n", 0)]
    assert kept == [1, 1]
    assert str(expires).startswith("2026-12-01")  # 30 days after the token was made


def test_upgrade_to_0006_adds_empty_quartiles_and_keeps_every_submission(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0005")
    engine = make_engine(url)
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        run(
            "INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at,"
            " session_generation) VALUES (1, 'ada', 'ada', 'x', 0, '2026-11-01 00:00:00', 0)"
        )
        run(
            "INSERT INTO submissions (id, user_id, problem_slug, code, status, verdict, points,"
            " passed, total, attempts, created_at, metric) VALUES (1, 1, 'p', 'x', 'done', 'AC',"
            " 100, 1, 1, 1, '2026-11-01 00:00:00', 150.0)"
        )
    migrate.upgrade(url)
    with engine.connect() as connection:
        row = connection.exec_driver_sql(
            "SELECT metric, metric_q1, metric_q3, metric_unit FROM submissions"
        ).one()
    command.downgrade(migrate.alembic_config(url), "0005")
    with engine.connect() as connection:
        kept = connection.exec_driver_sql("SELECT count(*) FROM submissions").scalar()
    engine.dispose()
    assert tuple(row) == (150.0, None, None, None)
    assert kept == 1


def test_upgrade_to_0007_dates_every_queued_row_and_records_each_verdict(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0006")
    engine = make_engine(url)
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        run(
            "INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at,"
            " session_generation) VALUES (1, 'ada', 'ada', 'x', 0, '2026-11-01 00:00:00', 0)"
        )
        for sid, status, verdict in ((1, "done", "'AC'"), (2, "queued", "NULL")):
            run(
                "INSERT INTO submissions (id, user_id, problem_slug, code, status, verdict,"
                " points, passed, total, attempts, created_at) VALUES"
                f" ({sid}, 1, 'p', 'x', '{status}', {verdict}, 0, 0, 0, 1,"
                " '2026-11-01 00:00:00')"
            )
    migrate.upgrade(url)
    with engine.connect() as connection:
        queued = connection.exec_driver_sql("SELECT id, queued_at, tries FROM submissions").all()
        judged = connection.exec_driver_sql(
            "SELECT submission_id, attempt, verdict FROM judgings"
        ).all()
    command.downgrade(migrate.alembic_config(url), "0006")
    with engine.connect() as connection:
        kept = connection.exec_driver_sql("SELECT count(*) FROM submissions").scalar()
    engine.dispose()
    assert [(i, str(at), tries) for i, at, tries in queued] == [
        (1, "2026-11-01 00:00:00", 0),
        (2, "2026-11-01 00:00:00", 0),
    ]
    assert [tuple(r) for r in judged] == [(1, 1, "AC")]
    assert kept == 2


def test_upgrade_to_0011_leaves_old_rows_without_a_seed_and_keeps_their_judgings(
    tmp_path: Path,
) -> None:
    """Old rows keep NULL (judged as they were, web.judging.jobs.judge_seed_for); new rows draw a
    63-bit seed; going back down drops the column in place, so no judging cascades away."""
    url = sqlite_url(tmp_path / "judge.sqlite3")
    migrate.upgrade(url, "0010")
    engine = make_engine(url)
    with engine.begin() as connection:
        run = connection.exec_driver_sql
        run(
            "INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at,"
            " session_generation) VALUES (1, 'ada', 'ada', 'x', 0, '2026-11-01 00:00:00', 0)"
        )
        run(
            "INSERT INTO submissions (id, user_id, problem_slug, code, status, verdict, points,"
            " passed, total, attempts, tries, created_at) VALUES (1, 1, 'p', 'x', 'done', 'AC',"
            " 100, 1, 1, 1, 1, '2026-11-01 00:00:00')"
        )
        run(
            "INSERT INTO judgings (submission_id, attempt, verdict, points, judged_at)"
            " VALUES (1, 1, 'AC', 100, '2026-11-01 00:00:00')"
        )
    migrate.upgrade(url)
    with Session(engine) as db:
        assert db.get(Submission, 1).hidden_seed is None
        db.add(Submission(user_id=1, problem_slug="p", code="y"))
        db.commit()
        seeds = db.scalars(select(Submission.hidden_seed).order_by(Submission.id)).all()
    assert seeds[0] is None and 0 <= seeds[1] < 2**63  # type: ignore[operator]
    command.downgrade(migrate.alembic_config(url), "0010")
    with engine.connect() as connection:
        kept = connection.exec_driver_sql("SELECT count(*) FROM submissions").scalar()
        judged = connection.exec_driver_sql("SELECT count(*) FROM judgings").scalar()
    engine.dispose()
    assert (kept, judged) == (2, 1)


def test_processes_migrating_one_new_sqlite_file_at_once_all_succeed(tmp_path: Path) -> None:
    """A server and its workers may start together on one SQLite file (a lock file)."""
    import subprocess
    import sys

    url = sqlite_url(tmp_path / "judge.sqlite3")
    code = f"from web.store import migrate; migrate.upgrade({url!r})"
    starts = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert [p.wait(120) for p in starts] == [0, 0, 0]
    engine = make_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert diff == []
