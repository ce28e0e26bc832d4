"""A wrong answer shows the whole value around its first difference, both sides, marked.

Naming only the leaf (`[2]['result'][0]: got 0, expected 2`) hides what the code did:
`free` returned [0, 1, 2] against [2, 1, 0]. The report carries the whole value, the page
and `judge run` mark the differing part.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.commands.render import diff_lines, width
from judge.grading.report import CaseResult
from judge.pictures.value_diff import MAX_DIFF_CHARS, ValueDiff, value_diff
from judge.problem.checkers import CheckSpec, check
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def _diff(got: object, expected: object) -> ValueDiff | None:
    mismatch = check(got, expected, CheckSpec())
    assert mismatch is not None
    return value_diff(got, expected, mismatch.path)


def _marked(text: str, mark: tuple[int, int]) -> str:
    return text[mark[0] : mark[1]]


def test_a_trace_step_shows_its_whole_result_with_the_first_difference_marked() -> None:
    expected = [
        {"op": "append(seq_id=1, n=5)", "result": True, "state": {}},
        {"op": "free(seq_id=1)", "result": [2, 1, 0], "state": {}},
    ]
    got = [expected[0], {"op": "free(seq_id=1)", "result": [0, 1, 2], "state": {}}]
    diff = _diff(got, expected)
    assert diff is not None and diff.where == "[1]['result']"
    assert (diff.got, diff.expected) == ("[0, 1, 2]", "[2, 1, 0]")
    assert _marked(diff.got, diff.got_mark) == "0"
    assert _marked(diff.expected, diff.expected_mark) == "2"


def test_a_returned_dict_is_shown_whole_in_its_own_key_order() -> None:
    expected = {"ridge": 295.2, "prefill": {"time_us": 60.8}, "decode": {"time_us": 35.1}}
    got = {"ridge": 295200.0, "prefill": {"time_us": 60.8}, "decode": {"time_us": 35.1}}
    diff = _diff(got, expected)
    assert diff is not None and diff.where == ""
    assert diff.expected.startswith("{'ridge': 295.2, 'prefill'")
    assert _marked(diff.got, diff.got_mark) == "295200.0"


def test_a_difference_that_is_the_whole_value_adds_no_diff() -> None:
    assert _diff(3, 4) is None
    assert _diff([1, 2], [1, 2, 3]) is None  # an item count names the whole list


def test_a_value_too_long_to_read_gives_way_to_the_part_around_the_difference() -> None:
    long = list(range(MAX_DIFF_CHARS))
    expected = {"big": long, "small": [1, 2, 3]}
    got = {"big": long, "small": [1, 9, 3]}
    diff = _diff(got, expected)
    assert diff is not None and diff.where == "['small']"
    assert (diff.got, _marked(diff.got, diff.got_mark)) == ("[1, 9, 3]", "9")


def test_a_wrong_public_case_reports_the_diff_and_reads_it_back() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    source = (PROBLEMS / "block-table/solutions/wrong/free_first_block_first.py").read_text()
    report = judge_source(problem, source)
    failed = next(c for c in report.cases if c.name == "free-order")
    assert failed.verdict is Verdict.WA and failed.diff is not None
    assert (failed.diff.got, failed.diff.expected) == ("[0, 1, 2]", "[2, 1, 0]")
    stored = failed.to_dict()
    assert stored["diff"]["got_mark"] == [1, 2]  # type: ignore[index]
    assert CaseResult.from_dict(stored).diff == failed.diff
    assert CaseResult.from_dict({**stored, "diff": "damaged"}).diff is None


def test_a_hidden_case_never_carries_a_diff() -> None:
    leaked = ValueDiff("", "[0]", "[1]", (1, 2), (1, 2))
    hidden = CaseResult("h", False, Verdict.WA, diff=leaked)
    assert "diff" not in hidden.to_dict()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_judge_run_prints_the_whole_values_with_carets_under_the_difference(lang: str) -> None:
    diff = ValueDiff("[2]['result']", "[0, 1, 2]", "[2, 1, 0]", (1, 2), (1, 2))
    case = CaseResult("free-order", True, Verdict.WA, diff=diff)
    lines = diff_lines(case, lang)
    assert "[2]['result']" in lines[0]
    got_at = next(i for i, line in enumerate(lines) if line.endswith("[0, 1, 2]"))
    value_column = width(lines[got_at][: lines[got_at].index("[0, 1, 2]")])  # zh: wide
    assert lines[got_at + 1] == " " * (value_column + 1) + "^"
    assert any(line.endswith("[2, 1, 0]") for line in lines)
