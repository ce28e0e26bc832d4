"""The public bundle of a problem: everything the browser may see, and nothing else.

Never the reference, the wrong solutions or anything drawn from a secret seed. Expected
observations are computed here, by CPython from the reference, for the public cases only.
A quiz's bundle has its questions (questions.toml) and, for expression questions, the
expected values at the public points: never answers.toml, its explanations or hidden points.
"""

from __future__ import annotations

from judge.messages import LANGS
from judge.problem.cases import PUBLIC_SEED, build_cases
from judge.problem.spec import ProblemKind, ProblemSpec
from judge.run.judge_source import expected_observations
from judge.wire.codec import encode
from judge.wire.tensor import TensorData

BUNDLE_FORMAT = 1


def public_bundle(problem: ProblemSpec) -> dict[str, object]:
    """Plain JSON data for judge.browser.public_run.run_public; browser tier only."""
    if problem.tier != "browser":
        raise ValueError(
            f"{problem.slug} is a {problem.tier}-tier problem; "
            "only browser-tier problems run in the browser"
        )
    if problem.quiz is not None:
        return quiz_bundle(problem)
    cases = build_cases(problem, PUBLIC_SEED)
    expected = expected_observations(problem, cases)
    tensors: list[TensorData] = []
    return {
        "format": BUNDLE_FORMAT,
        "kind": ProblemKind.CODE.value,
        "problem": problem.summary(),
        "statements": {lang: problem.statement(lang) for lang in LANGS},
        "starter": problem.starter_source(),
        "driver": problem.cases_source(),
        "cases": [
            {
                "name": c.name,
                "args": c.args,
                "check": c.check.to_dict(),
                "expected": encode(expected[c.name], tensors),
            }
            for c in cases
        ],
    }


def quiz_bundle(problem: ProblemSpec) -> dict[str, object]:
    """A quiz's public bundle: what public_run.run_public needs to check shapes and the
    expressions at their public points; `starter` is the blank answer sheet."""
    if problem.quiz is None:
        raise ValueError(f"{problem.slug} is not a quiz")
    return {
        "format": BUNDLE_FORMAT,
        "kind": ProblemKind.QUIZ.value,
        "problem": problem.summary(),
        "statements": {lang: problem.statement(lang) for lang in LANGS},
        "starter": problem.starter_source(),
        "questions": problem.quiz.public_questions(),
    }
