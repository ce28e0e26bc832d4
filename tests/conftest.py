"""Shared fixtures."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from problem_factory import FILES, TOML, MakeProblem
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
        folder = tmp_path / "problems" / slug
        merged: dict[str, str | None] = {
            "problem.toml": toml or TOML.format(slug=slug, per_case=per_case, total=total)
        }
        merged |= FILES
        merged |= files or {}
        for name, text in merged.items():
            path = folder / name
            if text is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        return folder

    return make


@pytest.fixture
def make_quiz(tmp_path: Path) -> MakeQuiz:
    """make_quiz(files={...}) -> a quiz folder (tests/quiz_factory.py), alone in its root."""

    def make(files: dict[str, str | None] | None = None, slug: str = "quiz") -> Path:
        return write_quiz(tmp_path / "quizzes", files, slug)

    return make
