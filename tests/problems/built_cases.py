"""A problem's cases for a seed, built once per test process: a torch problem builds them by
running its model (seconds a seed), and several tests read the same ones."""

from __future__ import annotations

import functools

from judge.kinds.proof import EXTRA_SEEDS
from judge.problem.cases import Case, build_cases
from judge.problem.problemset import ProblemSet

PROBLEMS = ProblemSet()
# Secret-looking seeds (none is the public seed), for the browser tier's tests.
SEEDS = (0x2F6A91C4D3B7E805, 0x13579BDF2468ACE0, 987654321, 7)
# A torch problem's tests take the two seeds `judge check` judges its reference on: a torch
# problem's cases run its model to be drawn, and the suite's answer cache
# (tests/answer_cache.py) then builds each of them once for the whole run.
TORCH_SEEDS = EXTRA_SEEDS


@functools.cache
def built(slug: str, seed: int) -> tuple[Case, ...]:
    """Every case (public and hidden) of `slug` on `seed`."""
    return tuple(build_cases(PROBLEMS.get(slug), seed))
