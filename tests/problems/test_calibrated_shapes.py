"""A calibrated case has one shape on every seed (issue 20): the runner measures the
reference on it once per problem version and case name, so a case whose cost changed with
the seed would be held to another case's allowance."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("torch")

from judge.problem.cases import build_cases
from judge.problem.problemset import ProblemSet

RULED = [p for p in ProblemSet().all() if p.cpu_rule is not None]


def _shape(value: object) -> object:
    """What the work depends on: list lengths (a batch's rows in any order), not the tokens."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(item, list) for item in value):
            return sorted(_shape(item) for item in value)  # type: ignore[type-var]
        return len(value)
    return value


def test_the_torch_problems_with_a_cpu_rule_are_these() -> None:
    assert sorted(p.slug for p in RULED) == ["batched-decode", "greedy-generate"]


@pytest.mark.parametrize("problem", RULED, ids=lambda p: p.slug)
def test_every_calibrated_case_has_the_same_shape_on_every_seed(problem) -> None:  # type: ignore[no-untyped-def]
    seeds = [random.Random(n).randrange(2**62) for n in (1, 2)]
    shapes = [
        {c.name: _shape(c.args) for c in build_cases(problem, seed) if c.calibrated}
        for seed in seeds
    ]
    assert shapes[0], "no calibrated case"
    assert shapes[0] == shapes[1]
