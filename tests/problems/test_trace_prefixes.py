"""A failing trace is shown and reproduced up to its first differing step (judge/pictures/case_input.py
cuts `args["ops"]` or `args["events"]` there): that is only the same case if every
problem's driver, run on the cut trace, gives exactly the first steps of the whole one."""

from __future__ import annotations

import pytest

from judge.pictures.case_input import trace_key, trace_labels
from judge.problem.cases import build_cases, load_module
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import canonical

PROBLEMS = ProblemSet()


def _traced(slug: str) -> bool:
    cases = build_cases(PROBLEMS.get(slug), None)
    return any(type(c.args) is dict and {"ops", "events"} & set(c.args) for c in cases)


TRACED = [
    p.slug for p in PROBLEMS.all() if p.tier == "browser" and p.quiz is None and _traced(p.slug)
]


@pytest.mark.parametrize("slug", TRACED)
def test_a_cut_trace_replays_the_first_steps_of_the_whole_one(slug: str) -> None:
    problem = PROBLEMS.get(slug)
    driver = load_module(problem.cases_source(), "cases", f"{slug}/cases.py")
    reference = load_module(problem.reference_source(), "reference", f"{slug}/reference.py")
    checked = 0
    for case in build_cases(problem, None)[:8]:
        whole = canonical(driver.run(reference, case.args))
        labels = trace_labels(whole)
        key = trace_key(case.args, len(labels)) if labels else None
        if key is None:
            continue
        for step in sorted({0, len(labels) // 2, len(labels) - 1}):
            cut = {**case.args, key: case.args[key][: step + 1]}
            assert canonical(driver.run(reference, cut)) == whole[: step + 1], (case.name, step)
        checked += 1
    assert checked, f"{slug}: no case has a per-step trace to cut"
