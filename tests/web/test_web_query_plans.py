"""Every board and list is one SQL query that walks an index: SQLite's plan for each has
no temporary B-tree (no sort of the whole candidate set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Select

from web.attempts.submissions import SubmissionQuery, search_query
from web.boards import leaderboard
from web.config import sqlite_url
from web.store import migrate
from web.store.db import make_engine


def plan(path: Path, stmt: Select) -> list[str]:  # type: ignore[type-arg]
    engine = make_engine(sqlite_url(path))
    sql = str(stmt.compile(engine, compile_kwargs={"literal_binds": True}))
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + sql).all()
    engine.dispose()
    return [row[3] for row in rows]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plans") / "judge.sqlite3"
    migrate.upgrade(sqlite_url(path))
    return path


@pytest.mark.parametrize(
    ("name", "stmt", "index"),
    [
        ("leaderboard", leaderboard.overall_query(100, 2500), "ix_standings_rank"),
        ("problem board", leaderboard.problem_query("p", 100), "ix_problem_results_board"),
        ("speed board", leaderboard.speed_query("p", "cpu", 100), "ix_speed_bests_board"),
        ("speed boards' device classes", leaderboard.device_classes_query("p"), "ix_speed_bests"),
        ("by user", search_query(SubmissionQuery(None, "ada", None, 50)), "ix_submissions_user"),
        (
            "newest, a hidden problem left out",
            search_query(SubmissionQuery(None, None, None, 50, exclude=("h",))),
            "submissions",
        ),
        (
            "by problem",
            search_query(SubmissionQuery("p", None, 900, 50)),
            "ix_submissions_problem",
        ),
        (
            "by both",
            search_query(SubmissionQuery("p", "ada", None, 50)),
            "ix_submissions_user_problem",
        ),
    ],
)
def test_query_walks_its_index(database: Path, name: str, stmt: Select, index: str) -> None:  # type: ignore[type-arg]
    steps = plan(database, stmt)
    assert any(index in step for step in steps), (name, steps)
    assert not any("TEMP B-TREE" in step for step in steps), (name, steps)
