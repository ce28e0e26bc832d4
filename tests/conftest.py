"""Shared fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import answer_cache
import pytest
from problem_factory import MakeProblem, write_add_problem
from quiz_factory import MakeQuiz, write_quiz

# Real Redis and PostgreSQL servers (tests/services.py), for every test that asks.
from services import postgres_server, postgres_url, redis_server, redis_url

__all__ = ["postgres_server", "postgres_url", "redis_server", "redis_url"]

TESTS = Path(__file__).resolve().parent
# Where a server judges (it computes its answers itself, as in production): no memo there.
SERVERS = (TESTS / "web", TESTS / "cluster", TESTS / "bench")
ANSWERS = answer_cache.AnswerCache()


@pytest.fixture(autouse=True)
def _answers_once_per_run(request: pytest.FixtureRequest) -> Iterator[None]:
    """The reference's answers on a seed, computed once per test run (tests/answer_cache.py)."""
    path = Path(str(request.node.path))
    # Only where the test's module brought the judge in already: importing it here would
    # change what a test of imports sees.
    judge_source = sys.modules.get("judge.run.judge_source")
    if (
        judge_source is None
        or not answer_cache.enabled()
        or any(path.is_relative_to(s) for s in SERVERS)
    ):
        yield
        return
    original = judge_source.expected_observations
    judge_source.expected_observations = ANSWERS.wrap(original)
    try:
        yield
    finally:
        judge_source.expected_observations = original


@pytest.fixture
def make_problem(tmp_path: Path) -> MakeProblem:
    """make_problem(files={...}, per_case=1.0, total=5.0, slug="add") -> the problem folder.

    `files` overrides or adds files (None deletes one); the root holds only this problem."""

    def make(
        files: dict[str, str | None] | None = None,
        per_case: float = 2.0,
        total: float = 10.0,
        slug: str = "add",
        toml: str | None = None,
    ) -> Path:
        return write_add_problem(tmp_path / "problems", files, per_case, total, slug, toml)

    return make


@pytest.fixture
def make_quiz(tmp_path: Path) -> MakeQuiz:
    """make_quiz(files={...}) -> a quiz folder (tests/quiz_factory.py), alone in its root."""

    def make(files: dict[str, str | None] | None = None, slug: str = "quiz") -> Path:
        return write_quiz(tmp_path / "quizzes", files, slug)

    return make


# The slowest files of the last clean runs (docs/TESTING.md, run L), slowest first. With two
# workers the suite ends when the later one does: these start first, each file kept whole,
# so that what is left at the end, when one worker waits for the other, is short tests.
# A file missing here is only scheduled in its usual place; one that is gone is ignored.
SLOWEST_FIRST = (
    "tests/runner/test_problems_in_sandbox.py",
    "tests/problems/test_problem_set.py",
    "tests/web/e2e/test_speed_board.py",
    "tests/problems/test_pyodide_parity.py",
    "tests/cluster/test_cluster_faults.py",
    "tests/web/test_web_fuzz.py",
    "tests/cluster/test_cluster_delivery.py",
    "tests/bench/test_bench_cluster.py",
    "tests/web/e2e/test_fit_and_finish.py",
    "tests/runner/test_hostile.py",
    "tests/web/e2e/test_server_run.py",
    "tests/runner/test_withheld_parts.py",
    "tests/web/test_web_serve_engine.py",
    "tests/web/e2e/test_practice_flow.py",
    "tests/web/e2e/test_every_problem.py",
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest files first (SLOWEST_FIRST), each file's tests together and in order."""
    rank = {path: i for i, path in enumerate(SLOWEST_FIRST)}
    root = TESTS.parent

    def file_of(item: pytest.Item) -> str:
        return Path(str(item.path)).relative_to(root).as_posix()

    order = {id(item): n for n, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(file_of(item), len(rank)), order[id(item)]))
