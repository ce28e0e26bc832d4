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
