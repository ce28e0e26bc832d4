"""The chapter's self-test in a real browser: a form per question, answered, submitted,
judged by the server's core, with each right answer explained."""

from __future__ import annotations

import json
from typing import Any

import pytest

from judge.problem.problemset import ProblemSet

from .conftest import PROBLEMS
from .pages import register, shoot

pytestmark = pytest.mark.browser
SLUG = "self-test"


def _answer(page: Any, question: Any, value: object) -> None:
    name = f"answer-{question.id}"
    kind = question.type.value
    if kind == "choice":
        page.check(f"input[name='{name}'][value='{value}']")
    elif kind == "choices":
        for option in value:  # type: ignore[attr-defined]
            page.check(f"input[name='{name}'][value='{option}']")
    else:
        page.fill(f"input[name='{name}']", str(value))


def test_the_self_test_is_answered_in_the_page_and_every_right_answer_is_explained(
    page: Any,
) -> None:
    quiz = ProblemSet(PROBLEMS).get(SLUG).quiz
    assert quiz is not None
    key = json.loads(quiz.reference_sheet())
    register(page, "quiz")
    page.goto(f"/problems/{SLUG}")
    for question in quiz.questions:
        _answer(page, question, key[question.id])
    shoot(page, "quiz-answered")
    page.click("#submit-button")
    page.wait_for_url("**/submissions/*")
    page.wait_for_selector(".verdict-AC", timeout=60_000)
    assert page.locator("tr.explanation").count() == len(quiz.questions)
    shoot(page, "quiz-judged")


def test_a_wrong_choice_is_wa_and_shows_no_explanation_for_it(page: Any) -> None:
    quiz = ProblemSet(PROBLEMS).get(SLUG).quiz
    assert quiz is not None
    choice = next(q for q in quiz.questions if q.type.value == "choice")
    right = quiz.keys[choice.id].answer
    wrong = next(o.id for o in choice.options if o.id != right)
    register(page, "quizwa")
    page.goto(f"/problems/{SLUG}")
    _answer(page, choice, wrong)
    page.click("#submit-button")
    page.wait_for_url("**/submissions/*")
    page.wait_for_selector(".verdict.verdict-WA", timeout=60_000)
    assert page.locator("tr.explanation").count() == 0


def test_run_marks_an_expression_wrong_at_a_public_point_in_place(page: Any) -> None:
    """Issue 23: the statement promised a Run at the public points shown with each
    question; the page had neither."""
    quiz = ProblemSet(PROBLEMS).get(SLUG).quiz
    assert quiz is not None
    expression = next(q for q in quiz.questions if q.public_points)
    page.goto(f"/problems/{SLUG}")
    item = page.locator(f"#q-{expression.id}")
    assert "Run checks your expression at:" in item.locator(".public-points").inner_text()
    _answer(page, expression, "0")
    page.click("#run-button")
    item = page.locator(f"#q-{expression.id}")
    item.locator(".question-mark").wait_for()
    assert "wrong" in (item.get_attribute("class") or "")
    assert "differs from the expected value at" in item.locator(".question-mark").inner_text()
    assert page.locator(f"input[name='answer-{expression.id}']").input_value() == "0"
    shoot(page, "quiz-run")


def test_after_a_wrong_submission_the_way_back_leads_to_the_wrong_question_marked(
    page: Any,
) -> None:
    quiz = ProblemSet(PROBLEMS).get(SLUG).quiz
    assert quiz is not None
    number, choice = next(
        (i, q) for i, q in enumerate(quiz.questions, 1) if q.type.value == "choice"
    )
    right = quiz.keys[choice.id].answer
    wrong = next(o.id for o in choice.options if o.id != right)
    register(page, "quizback")
    page.goto(f"/problems/{SLUG}")
    _answer(page, choice, wrong)
    page.click("#submit-button")
    page.wait_for_url("**/submissions/*")
    page.wait_for_selector(".verdict.verdict-WA", timeout=60_000)
    assert page.locator(f"td.question-name a[href$='#q-{choice.id}']").inner_text() == (
        f"Question {number}"
    )
    page.click("#back-to-quiz")
    page.wait_for_url(f"**/problems/{SLUG}")
    item = page.locator(f"#q-{choice.id}")
    assert "wrong" in (item.get_attribute("class") or "")
    assert "not the right option" in item.locator(".question-mark").inner_text()
    shoot(page, "quiz-marked")
