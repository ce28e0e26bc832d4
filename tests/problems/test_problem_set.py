"""Every problem in problems/ proves itself: `judge check` passes for each one."""

from __future__ import annotations

import pytest

from judge.problemset import ProblemSet
from judge.selfcheck import check_problem

PROBLEMS = ProblemSet()


@pytest.mark.parametrize("slug", PROBLEMS.slugs())
def test_judge_check_passes(slug: str) -> None:
    result = check_problem(PROBLEMS.get(slug))
    failing = [f"{c.name}: {c.detail}" for c in result.checks if not c.ok]
    assert not failing, "\n".join(failing)


@pytest.mark.parametrize("slug", PROBLEMS.slugs())
def test_statements_exist_in_both_languages_and_define_the_names(slug: str) -> None:
    problem = PROBLEMS.get(slug)
    for lang in ("zh", "en"):
        text = problem.statement(lang)
        assert len(text) > 200, f"{lang} statement is too short"
        for name in problem.names:
            assert name in text, f"{lang} statement never mentions {name}"
