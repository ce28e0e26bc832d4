"""The public bundle of a problem: everything the browser may see, and nothing else.

Never the reference, the wrong solutions or anything drawn from a secret seed. What a
bundle holds beyond that is the problem's kind's to say (judge/kinds/): a code problem's
public cases with their expected observations, computed here by CPython from the
reference; a quiz's questions and, for expression questions, the expected values at the
public points: never answers.toml, its explanations or hidden points.
"""

from __future__ import annotations

from judge.kinds.kind import BUNDLE_FORMAT
from judge.kinds.registry import kind_of
from judge.problem.spec import ProblemSpec

__all__ = ["BUNDLE_FORMAT", "public_bundle"]


def public_bundle(problem: ProblemSpec) -> dict[str, object]:
    """Plain JSON data for judge.browser.public_run.run_public; browser tier only."""
    if problem.tier != "browser":
        raise ValueError(
            f"{problem.slug} is a {problem.tier}-tier problem; "
            "only browser-tier problems run in the browser"
        )
    return kind_of(problem).public_bundle(problem)
