"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import MakeProblem, write_add_problem
from quiz_factory import MakeQuiz, write_quiz

# Real Redis and PostgreSQL servers (tests/services.py), for every test that asks.
from services import postgres_server, postgres_url, redis_server, redis_url

__all__ = ["postgres_server", "postgres_url", "redis_server", "redis_url"]


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
