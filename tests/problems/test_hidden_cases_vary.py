"""No hidden input can be learned: every problem's hidden cases change with the seed
(issue 20, section 3).

Each submission on the server meets the hidden cases of a seed of its own (web.store.models), so
what one submission reads of its hidden inputs is of no use to the next, but only if no
hidden case is the same whatever the seed. A hidden case that is, or one drawn from so few
values that two seeds meet the same one, could be read out over many submissions and its
answer hard-coded. Cases are compared by their arguments, across names too: a seed may put
the same arguments under another case's name.
"""

from __future__ import annotations

import itertools
import json

import pytest
from built_cases import PROBLEMS, SEEDS, TORCH_SEEDS, built
from torch_tier import torch_missing_reason

from judge.grading.quiz_grading import hidden_points
from judge.problem.spec import ProblemKind, ProblemSpec

# Four seeds, so six pairs meet; a torch problem builds its cases by running its model
# (seconds a seed): two of them, one pair, which a case that ignores the seed still fails.
# Torch-tier problems whose cases.py the maintainers of the torch tier are changing: each
# still draws a hidden case from a small set of values, named here until it is fixed.
SMALL_SPACES: dict[str, str] = {}


def _hidden_args(problem: ProblemSpec, seed: int) -> dict[str, str]:
    """Each hidden case's arguments as canonical JSON -> the case's name."""
    cases = built(problem.slug, seed)
    return {json.dumps(c.args, sort_keys=True): c.name for c in cases if not c.public}


def _params() -> list[object]:
    params: list[object] = []
    for problem in (p for p in PROBLEMS.all() if p.kind is ProblemKind.CODE):
        marks = []
        reason = torch_missing_reason(problem)
        if reason:
            marks.append(pytest.mark.skip(reason=reason))
        if problem.slug in SMALL_SPACES:
            marks.append(pytest.mark.xfail(reason=SMALL_SPACES[problem.slug], strict=True))
        params.append(pytest.param(problem, id=problem.slug, marks=marks))
    return params


@pytest.mark.parametrize("problem", _params())
def test_no_hidden_case_is_the_same_for_two_seeds(problem: ProblemSpec) -> None:
    seeds = TORCH_SEEDS if problem.tier == "torch" else SEEDS
    drawn = {seed: _hidden_args(problem, seed) for seed in seeds}
    assert all(drawn.values()), "a problem with no hidden case has nothing the seed keeps secret"
    same = []
    for one, other in itertools.combinations(seeds, 2):
        same += [
            f"{name} (seed {one}) = {drawn[other][args]} (seed {other})"
            for args, name in drawn[one].items()
            if args in drawn[other]
        ]
    assert not same, "hidden cases whose arguments do not depend on the seed:\n" + "\n".join(same)


def test_the_list_of_small_spaces_names_only_problems_that_exist() -> None:
    assert set(SMALL_SPACES) <= set(PROBLEMS.slugs())


QUIZZES = [p for p in PROBLEMS.all() if p.kind is ProblemKind.QUIZ]


@pytest.mark.parametrize("quiz", QUIZZES, ids=lambda p: p.slug)
def test_every_expression_question_with_hidden_points_draws_fresh_ones(
    quiz: ProblemSpec,
) -> None:
    """An expression question's fixed hidden points are the same for every seed (by design:
    the corners the answer must get right); it must also draw points from the seed, or an
    expression fitted to the fixed ones could pass."""
    assert quiz.quiz is not None
    for question in quiz.quiz.questions:
        key = quiz.quiz.keys[question.id]
        if not key.points and key.draw is None:
            continue
        assert key.draw is not None, f"{question.id}: hidden points, none drawn from the seed"
        drawn = [hidden_points(question, key, seed)[len(key.points) :] for seed in SEEDS]
        for one, other in itertools.combinations(drawn, 2):
            assert not {json.dumps(p, sort_keys=True) for p in one} & {
                json.dumps(p, sort_keys=True) for p in other
            }, question.id
