"""Torch-tier problems need torch in the judging process (their reference and cases.py
import it). Where torch is not installed, a test that judges every problem skips those,
saying why, instead of failing on the problem's own `import torch`. An installed torch
that fails to import is not "absent": that still fails, loudly.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

import pytest

from judge.problem.spec import ProblemSpec


def torch_missing_reason(problem: ProblemSpec) -> str | None:
    """Why `problem` cannot be judged here, or None when it can."""
    if problem.tier != "torch" or importlib.util.find_spec("torch") is not None:
        return None
    return (
        f"{problem.slug} is a torch-tier problem and torch is not installed here "
        "(`make setup` installs it)"
    )


def problem_params(problems: Iterable[ProblemSpec]) -> list[object]:
    """One pytest.param per problem, its id the slug; skipped, with the reason, where the
    problem needs torch and torch is not installed (decided at collection, before any
    fixture such as a warm sandbox is set up for it)."""
    params: list[object] = []
    for problem in problems:
        reason = torch_missing_reason(problem)
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param(problem, id=problem.slug, marks=marks))
    return params
