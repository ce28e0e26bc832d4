"""A failing public case shows its input; a hidden one never does (issue 12, section 1).

Before, a learner saw where and how a case failed but never what it was given: the
arguments of a plain case, or for a stateful problem the constructor's parameters and
the calls that led to the differing step.
"""

from __future__ import annotations

import json
from pathlib import Path

from problem_factory import MakeProblem

from judge.commands.render import input_lines
from judge.grading.report import CaseResult, Report
from judge.pictures.case_input import MAX_INPUT_CHARS, CaseInput, case_input
from judge.problem.cases import build_cases
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

SECRET_SEED = 987654321
PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
MINUS = "def add(a, b):\n    return a - b\n"


def _wrong(slug: str, name: str) -> str:
    return (PROBLEMS / slug / "solutions" / "wrong" / name).read_text(encoding="utf-8")


def _case(report: Report, name: str) -> CaseResult:
    return next(c for c in report.cases if c.name == name)


def test_a_failing_public_case_shows_its_arguments(make_problem: MakeProblem) -> None:
    report = judge_source(load_problem(make_problem()), MINUS)
    small = _case(report, "small")
    assert small.verdict is Verdict.WA
    assert small.input == CaseInput([1, 2])
    assert report.to_dict()["cases"][0]["input"] == {"args": [1, 2]}


def test_a_passing_case_carries_no_input(make_problem: MakeProblem) -> None:
    report = judge_source(load_problem(make_problem()), "def add(a, b):\n    return a + b\n")
    assert report.verdict is Verdict.AC
    assert all(c.input is None and c.test is None for c in report.cases)


def test_hidden_cases_never_carry_their_input_or_a_test(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    report = judge_source(problem, MINUS, seed=SECRET_SEED)
    hidden = [c for c in report.to_dict()["cases"] if not c["public"]]
    assert hidden and all(c["verdict"] == "WA" for c in hidden)
    assert not any({"input", "test"} & set(c) for c in hidden), hidden
    secret_args = [c.args for c in build_cases(problem, SECRET_SEED) if not c.public]
    text = json.dumps(hidden)
    assert all(f"[{a}, {b}]" not in text for a, b in secret_args)  # type: ignore[misc]
    public = [c for c in report.cases if c.public]
    assert public and all(c.input is not None and c.test for c in public)


def test_a_hidden_result_given_an_input_by_mistake_still_reports_none() -> None:
    """The report's own rule, in case a future grader attached one to a hidden case."""
    leaked = CaseResult("h", False, Verdict.WA, input=CaseInput([7, 8]), test="x", stdout="7 8")
    assert set(leaked.to_dict()) == {"name", "public", "verdict", "time_ms", "message"}


def test_a_stateful_failure_shows_the_calls_up_to_the_first_differing_step() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    source = _wrong("block-table", "free_first_block_first.py")  # WA at free-order step 2
    failed = _case(judge_source(problem, source), "free-order")
    shown = failed.input
    assert shown is not None and shown.step == 2
    assert shown.ops == ("append(seq_id=1, n=5)", "append(seq_id=2, n=2)", "free(seq_id=1)")
    # The constructor's parameters whole, the trace cut after the step that differs.
    assert shown.args == {
        "num_blocks": 6,
        "block_size": 2,
        "ops": [["append", 1, 5], ["append", 2, 2], ["free", 1]],
    }
    assert (shown.trace_key, shown.trace_length) == ("ops", 7)
    # The state both agreed on after step 1: sequence 2's one block, two blocks free.
    assert shown.state_before == {"block_table": [3], "num_tokens": 2, "free_blocks": [4, 5]}


def test_a_step_on_another_sequence_shows_whose_state_came_before_and_its_own_sequence() -> None:
    """Regression (issue 23): block-table's "state before step 2" was sequence 2's table,
    unlabelled, while step 2 frees sequence 1. The label names the step that left it, and
    sequence 1's own last state is shown beside it."""
    problem = ProblemSet(PROBLEMS).get("block-table")
    source = _wrong("block-table", "free_first_block_first.py")
    failed = _case(judge_source(problem, source), "free-order")
    shown = failed.input
    assert shown is not None and shown.subject == "seq_id=1" and shown.subject_step == 0
    assert shown.subject_state == {
        "block_table": [0, 1, 2],
        "num_tokens": 5,
        "free_blocks": [3, 4, 5],
    }
    assert CaseInput.from_dict(shown.to_dict()) == shown
    text = "\n".join(input_lines(failed, "en"))
    assert "state before step 2, as step 1 (append(seq_id=2, n=2)) left it" in text
    assert "step 2 acts on seq_id=1; its state after step 0 (append(seq_id=1, n=5))" in text
    assert "第 1 步（append(seq_id=2, n=2)）之后" in "\n".join(input_lines(failed, "zh"))


def test_a_step_on_the_sequence_of_the_step_before_adds_no_second_state() -> None:
    expected = [
        {"op": "append(seq_id=1, n=5)", "result": True, "state": {"t": [0]}},
        {"op": "free(seq_id=1)", "result": [0], "state": {"t": []}},
    ]
    shown = case_input({"ops": [["append", 1, 5], ["free", 1]]}, expected, 1)
    assert shown.subject == "seq_id=1" and shown.subject_step is None


def test_a_trace_whose_arguments_are_not_one_per_step_is_shown_whole() -> None:
    """The scheduler's requests are arrivals, not steps: cutting them would change the case."""
    problem = ProblemSet(PROBLEMS).get("scheduler")
    source = _wrong("scheduler", "recompute_forgets_output.py")  # preemption-by-recompute step 4
    failed = _case(judge_source(problem, source), "preemption-by-recompute")
    case = next(c for c in build_cases(problem, None) if c.name == "preemption-by-recompute")
    shown = failed.input
    assert shown is not None and shown.step == 4 and len(shown.ops) == 5
    assert shown.args == case.args and shown.trace_key is None
    assert shown.ops[-1] == "step()"


def test_arguments_too_long_to_show_are_left_out_with_their_size() -> None:
    args = {"values": list(range(MAX_INPUT_CHARS))}
    shown = case_input(args, 0, None)
    assert shown.args is None and shown.omitted_chars == len(json.dumps(args))


def test_a_report_with_inputs_reads_back_the_same() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    report = judge_source(problem, _wrong("block-table", "off_by_one_blocks.py"))
    assert any(c.input is not None and c.input.state_before is not None for c in report.cases)
    data = json.loads(json.dumps(report.to_dict()))
    assert Report.from_dict(data).to_dict() == data
