"""Every problem in problems/ proves itself: `judge check` passes for each one."""

from __future__ import annotations

import pytest
from torch_tier import problem_params

from judge.commands.selfcheck import check_problem
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec

PROBLEMS = ProblemSet()


@pytest.mark.parametrize(
    "problem", [p for p in PROBLEMS.all() if p.tier == "browser"], ids=lambda p: p.slug
)
def test_judge_check_passes(problem: ProblemSpec) -> None:
    """Torch-tier problems get the whole check in the sandbox (tests/runner/
    test_problems_in_sandbox.py), where the models are loaded once per worker; here, their
    reference judged by a local child, as `judge run` does on a learner's machine."""
    result = check_problem(problem)
    failing = [f"{c.name}: {c.detail}" for c in result.checks if not c.ok]
    assert not failing, "\n".join(failing)


@pytest.mark.slow
@pytest.mark.parametrize("problem", problem_params(p for p in PROBLEMS.all() if p.tier == "torch"))
def test_a_torch_problems_reference_is_accepted_by_the_local_judge(problem: ProblemSpec) -> None:
    """Torch-tier problems skip, saying so, where torch is not installed. A speed problem's
    timed cases run unpaced, as `judge check` runs them: the verdict is what is proved here
    (pacing is tested on its own in tests/judge and tests/web)."""
    from judge.run.judge_source import judge_source
    from judge.verdict import Verdict

    report = judge_source(problem, problem.reference_source(), pace=False)
    assert report.verdict is Verdict.AC, [(c.name, c.message) for c in report.cases]


@pytest.mark.parametrize("slug", PROBLEMS.slugs())
def test_statements_exist_in_both_languages_and_define_the_names(slug: str) -> None:
    problem = PROBLEMS.get(slug)
    for lang in ("zh", "en"):
        text = problem.statement(lang)
        assert len(text) > 200, f"{lang} statement is too short"
        for name in problem.names:
            assert name in text, f"{lang} statement never mentions {name}"


def test_problem_numbers_are_unique_and_follow_the_chapter() -> None:
    """Two problems once shared number 2 (issue 12); the chapter's order is its teaching
    order: why K and V can be cached, what that saves, what it costs, then paging."""
    problems = ProblemSet().all()
    numbers = [(p.chapter, p.order) for p in problems]
    assert len(numbers) == len(set(numbers)), numbers
    slugs = [p.slug for p in problems if p.chapter == "kv-cache"]
    assert slugs.index("attention-decode") < slugs.index("tokens-processed")
    assert slugs.index("tokens-processed") < slugs.index("kv-bytes-per-token")
    assert slugs.index("block-table") < slugs.index("prefix-cache") < slugs.index("scheduler")
