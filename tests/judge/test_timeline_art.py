"""A serving engine's timeline (issue 25): the picture of a failing case carries the
reference's run and the learner's, refuses to draw a side it cannot read (the learner's
comes from the job the submission shares), and `judge run` prints both as rows of letters."""

from __future__ import annotations

from typing import Any

import pytest

from judge.pictures.case_pictures import picture, summary_lines
from judge.pictures.timeline_art import summary

ARGS = {"requests": [{"arrival": 0}, {"arrival": 1}], "num_blocks": 8}


def observation(rows: list[str], blocks: list[int], steps: int | None = None) -> dict[str, Any]:
    line = {"rows": rows, "blocks": blocks, "pool": 8, "steps": steps or len(blocks)}
    return {"faults": [], "tokens": [[1], [2]], "latency": "within the bound", "timeline": line}


WANT = observation(["PDD ", " PDD"], [1, 2, 2, 1])


def test_a_failing_serving_case_draws_both_runs() -> None:
    got = observation(["PDD  ", " ..RD"], [1, 1, 2, 2, 1])
    shown = picture(ARGS, WANT, got, None)
    assert shown is not None and shown["kind"] == "timeline" and shown["pool"] == 8
    assert shown["expected"]["rows"] == ["PDD ", " PDD"]
    assert shown["got"]["rows"] == ["PDD  ", " ..RD"]
    assert summary(shown["got"]) == {
        "steps": 5,
        "prefill": 1,
        "decode": 3,
        "recompute": 1,
        "peak": 2,
    }


@pytest.mark.parametrize(
    "timeline",
    [
        "PDD",  # not a table
        {"rows": ["PDD "], "blocks": [1, 2, 2, 1], "pool": 8, "steps": 4},  # a request short
        {"rows": ["PDD ", " PDX"], "blocks": [1, 2, 2, 1], "pool": 8, "steps": 4},  # a letter
        {"rows": ["PDD ", " PD"], "blocks": [1, 2, 2, 1], "pool": 8, "steps": 4},  # ragged
        {"rows": ["PDD ", " PDD"], "blocks": [1, 2, 9, 1], "pool": 8, "steps": 4},  # over pool
        {"rows": ["PDD ", " PDD"], "blocks": [1, True, 2, 1], "pool": 8, "steps": 4},  # a bool
        {"rows": ["PDD ", " PDD"], "blocks": [1, 2, 2, 1], "pool": 0, "steps": 4},  # no pool
        {"rows": ["P" * 300, "D" * 300], "blocks": [1] * 300, "pool": 8, "steps": 300},  # long
    ],
)
def test_a_learners_side_that_cannot_be_read_is_not_drawn_and_raises_nothing(
    timeline: object,
) -> None:
    got = {**WANT, "timeline": timeline}
    shown = picture(ARGS, WANT, got, None)
    assert shown is not None and shown["got"] is None
    assert any("no timeline" in line for line in summary_lines(shown, "en"))


def test_without_the_references_timeline_there_is_no_picture() -> None:
    plain = {k: v for k, v in WANT.items() if k != "timeline"}
    assert picture(ARGS, plain, WANT, None) is None


def test_judge_run_prints_both_runs_as_letters_with_the_blocks_as_a_spark_line() -> None:
    got = observation(["PDD  ", " ..RD"], [1, 1, 2, 2, 8])
    lines = summary_lines(picture(ARGS, WANT, got, None), "en")
    text = "\n".join(lines)
    assert "P prefill chunk, D decode, R recomputed after a preemption" in text
    assert "Reference: steps 4, prefill chunks 2, decode steps 4, recomputations 0" in text
    assert "Yours: steps 5," in text and "blocks held at most 8" in text
    assert "    r1      | ..RD" in lines
    sparks = [line for line in lines if line.lstrip().startswith("blocks")]
    assert sparks[-1].endswith("█"), "a step holding the whole pool is a full bar"
    zh = "\n".join(summary_lines(picture(ARGS, WANT, got, None), "zh"))
    assert "参考答案：4 步" in zh and "R 被抢占后重算" in zh


def test_a_timeline_cut_at_its_limit_says_the_run_went_on() -> None:
    got = observation(["PDD  ", " ..RD"], [1, 1, 2, 2, 1], steps=900)
    text = "\n".join(summary_lines(picture(ARGS, WANT, got, None), "en"))
    assert "keeps its first 5 steps" in text


def _graded(public: bool, got: dict[str, Any], name: str = "burst") -> Any:
    from judge.grading.case_grading import grade
    from judge.grading.outcome import Outcome, OutcomeKind
    from judge.problem.cases import Case
    from judge.problem.checkers import CheckSpec

    case = Case(name, ARGS, CheckSpec("exact", unchecked=("timeline",)), public=public)
    return grade(case, Outcome(OutcomeKind.RESULT, observation=got), WANT)


def test_a_passing_public_case_carries_its_run_beside_the_references() -> None:
    got = observation(["PDDD ", " ..RD"], [1, 1, 2, 2, 1])
    result = _graded(True, got)
    assert result.verdict.value == "AC", "the timelines differ, and nothing else"
    assert result.input.picture["got"]["rows"] == ["PDDD ", " ..RD"]
    assert result.test is None, "a passing case has nothing to reproduce"


def test_a_hidden_case_never_carries_a_picture() -> None:
    result = _graded(False, observation(["PDDD ", " ..RD"], [1, 1, 2, 2, 1]))
    assert result.input is None and "input" not in result.to_dict()


def test_judge_run_picture_prints_one_cases_timeline_and_refuses_what_it_cannot_show() -> None:
    from judge.commands.cli import _pictured_case
    from judge.commands.render import picture_lines
    from judge.errors import UsageError
    from judge.grading.report import Report
    from judge.verdict import Verdict

    passed = _graded(True, observation(["PDDD ", " ..RD"], [1, 1, 2, 2, 1]))
    hidden = _graded(False, WANT, "hidden-burst")
    report = Report("serve-engine", "v", Verdict.AC, 100, (passed, hidden))
    lines = picture_lines(_pictured_case(report, "burst"), "en")
    assert lines[0] == "burst (Accepted)" and any("Yours: steps 5," in x for x in lines)
    for name, why in (("nope", "no case 'nope'"), ("hidden-burst", "hidden")):
        with pytest.raises(UsageError) as refused:
            _pictured_case(report, name)
        assert why in str(refused.value)
