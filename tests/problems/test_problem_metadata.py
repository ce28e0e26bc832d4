"""Metadata the problem list shows for every real problem."""

from __future__ import annotations

from pathlib import Path

from judge.problem.problemset import ProblemSet

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def test_every_problem_says_how_hard_it_is() -> None:
    """The list's difficulty column would be blank for a problem that forgot the field."""
    missing = [p.slug for p in ProblemSet(PROBLEMS).all() if p.difficulty is None]
    assert missing == []
