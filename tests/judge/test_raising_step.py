"""An exception inside a trace's step names that step, as a wrong answer's first differing
step is named (the open issue's "Messages that point at the mistake").

Before, an RE on a stateful case said only "KeyError: 1" and showed the whole trace: the
learner had to count calls to find which one raised. The step is counted in the child,
where the submission runs, so it is only ever a hint for what is shown: the parent keeps it
only where it is a step of the reference's trace, names the call from that trace, and the
verdict is RE whatever the step.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.browser.bundle import public_bundle
from judge.browser.public_run import judge_bundle
from judge.commands.render import input_lines
from judge.grading.case_grading import grade
from judge.grading.outcome import Outcome, OutcomeKind
from judge.grading.report import CaseResult, Report
from judge.pictures.case_input import trace_labels
from judge.problem.cases import build_cases, load_module
from judge.problem.problemset import ProblemSet
from judge.run.child import error_answer
from judge.run.judge_source import canonical, judge_source
from judge.verdict import Verdict

PROBLEMS = ProblemSet(Path(__file__).resolve().parents[2] / "problems")
REFERENCE = (PROBLEMS.get("block-table").path / "reference.py").read_text(encoding="utf-8")
# free-order's step 2 is free(seq_id=1): the first free of its trace.
FREE_RAISES = REFERENCE + "\nBlockAllocator.free = lambda self, seq_id: 1 // 0\n"
SAYS = "step 2 (free(seq_id=1)) raised ZeroDivisionError: integer division or modulo by zero"


def _case(report: Report, name: str) -> CaseResult:
    return next(c for c in report.cases if c.name == name)


def _free_order() -> tuple[object, object]:
    """free-order's arguments and the reference's trace on them."""
    problem = PROBLEMS.get("block-table")
    case = next(c for c in build_cases(problem, None) if c.name == "free-order")
    driver = load_module(problem.cases_source(), "cases", "block-table/cases.py")
    reference = load_module(REFERENCE, "reference", "block-table/reference.py")
    return case.args, canonical(driver.run(reference, case.args))


def test_an_exception_inside_a_step_names_the_step_and_its_call() -> None:
    failed = _case(judge_source(PROBLEMS.get("block-table"), FREE_RAISES), "free-order")
    assert failed.verdict is Verdict.RE
    assert failed.message == SAYS
    assert failed.text is not None
    assert failed.text.render("zh") == (
        "第 2 步（free(seq_id=1)）抛出异常：ZeroDivisionError: integer division or modulo by zero"
    )


def test_the_step_that_raised_is_marked_in_the_input_with_the_references_state_before() -> None:
    failed = _case(judge_source(PROBLEMS.get("block-table"), FREE_RAISES), "free-order")
    shown = failed.input
    assert shown is not None and shown.step == 2 and shown.raised
    assert shown.ops == ("append(seq_id=1, n=5)", "append(seq_id=2, n=2)", "free(seq_id=1)")
    assert shown.args["ops"] == [["append", 1, 5], ["append", 2, 2], ["free", 1]]  # type: ignore[index]
    _, expected = _free_order()
    assert shown.state_before == expected[1]["state"]  # type: ignore[index]
    assert shown.picture is None  # nothing was returned to draw beside the reference's
    assert failed.test is not None and "up to the first that raises" in failed.test
    assert failed.to_dict()["input"]["raised"] is True  # type: ignore[index]


def test_judge_run_heads_the_calls_with_the_step_that_raised_in_both_languages() -> None:
    failed = _case(judge_source(PROBLEMS.get("block-table"), FREE_RAISES), "free-order")
    english = "\n".join(input_lines(failed, "en"))
    assert "calls, steps 0-2 (step 2 raised):" in english
    assert "state before step 2, as the reference's step 1 (append(seq_id=2, n=2)) left it:" in (
        english
    )
    assert "got and expected agree" not in english
    assert "（第 2 步抛出了异常）" in "\n".join(input_lines(failed, "zh"))


def test_the_browser_judge_names_the_same_step() -> None:
    bundle = json.loads(json.dumps(public_bundle(PROBLEMS.get("block-table"))))
    failed = _case(judge_bundle(bundle, FREE_RAISES), "free-order")
    assert failed.verdict is Verdict.RE and failed.message == SAYS
    assert failed.input is not None and failed.input.step == 2 and failed.input.raised


def test_an_exception_before_the_first_step_names_no_step() -> None:
    source = REFERENCE + "\nBlockAllocator.__init__ = lambda self, n, size: 1 // 0\n"
    failed = _case(judge_source(PROBLEMS.get("block-table"), source), "free-order")
    assert failed.verdict is Verdict.RE
    assert failed.message == "ZeroDivisionError: integer division or modulo by zero"
    assert failed.input is not None and failed.input.step is None and not failed.input.raised


def test_a_hidden_case_never_names_the_step_that_raised() -> None:
    report = judge_source(PROBLEMS.get("block-table"), FREE_RAISES, seed=987654321)
    hidden = [c for c in report.cases if not c.public and c.verdict is Verdict.RE]
    assert hidden and not any("step" in c.message for c in hidden)


def test_a_report_with_a_raising_step_reads_back_the_same() -> None:
    report = judge_source(PROBLEMS.get("block-table"), FREE_RAISES)
    data = json.loads(json.dumps(report.to_dict()))
    again = Report.from_dict(data)
    assert _case(again, "free-order").input.raised  # type: ignore[union-attr]
    assert again.to_dict() == data


@pytest.mark.parametrize("forged", [3, 7, 10**6])
def test_the_childs_step_names_only_a_step_of_the_references_trace(forged: int) -> None:
    """The child could say any step; the call named is the reference's, a step past the
    trace is no step, and the verdict is RE either way."""
    _, expected = _free_order()
    problem = PROBLEMS.get("block-table")
    case = next(c for c in build_cases(problem, None) if c.name == "free-order")
    raised = Outcome(OutcomeKind.ERROR, message="KeyError: 1", exception="KeyError", step=forged)
    result = grade(case, raised, expected)
    assert result.verdict is Verdict.RE
    labels = trace_labels(expected)
    assert labels is not None
    if forged < len(labels):
        assert result.message == f"step {forged} ({labels[forged]}) raised KeyError: 1"
        assert result.input is not None and result.input.step == forged
    else:
        assert result.message == "KeyError: 1"
        assert result.input is not None and result.input.step is None


def test_a_case_that_is_not_a_trace_names_no_step() -> None:
    problem = PROBLEMS.get("kv-bytes-per-token")
    case = build_cases(problem, None)[0]
    raised = Outcome(OutcomeKind.ERROR, message="KeyError: 1", exception="KeyError", step=0)
    assert grade(case, raised, 1024).message == "KeyError: 1"


def test_the_child_counts_the_steps_its_driver_had_collected() -> None:
    args, _ = _free_order()
    driver = load_module(PROBLEMS.get("block-table").cases_source(), "cases", "cases.py")
    submission = load_module(FREE_RAISES, "submission", "submission.py")
    with pytest.raises(ZeroDivisionError) as raised:
        driver.run(submission, args)
    assert error_answer("free-order", raised.value, driver.run)["step"] == 2
    assert "step" not in error_answer("free-order", raised.value)  # no driver: no count


TRACED = [
    p.slug
    for p in PROBLEMS.all()
    if p.tier == "browser"
    and p.quiz is None
    and any(
        type(c.args) is dict and {"ops", "events", "requests"} & set(c.args)
        for c in build_cases(p, None)
    )
]


@pytest.mark.parametrize("slug", TRACED)
def test_every_trace_driver_collects_its_steps_in_a_list_named_steps(slug: str) -> None:
    """The child counts that list to say which step raised (docs/stateful-problems.md)."""
    problem = PROBLEMS.get(slug)
    driver = load_module(problem.cases_source(), "cases", f"{slug}/cases.py")
    assert "steps" in driver.run.__code__.co_varnames
