"""Quiz problems on the platform: the answer sheet built from the page's form, a learner's
last answers, and giving up on a question.

Giving up shows the question's explanation (from answers.toml, which otherwise never
leaves the server) and records it: from that moment the learner's submissions to that
quiz still get verdicts but no longer count on the boards (web.boards.standings), so a revealed
explanation can never be turned into points.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.problem.spec import ProblemSpec
from judge.quiz.questions import Question, QuestionType, Quiz
from web.errors import Invalid, NotFound
from web.i18n import say
from web.store.db import put_row
from web.store.models import QuizReveal, Submission

FIELD_PREFIX = "answer-"  # the form field of question `id` is "answer-<id>"


def quiz_of(problem: ProblemSpec) -> Quiz:
    if problem.quiz is None:
        raise Invalid("not_a_quiz", say("err_not_a_quiz", slug=problem.slug), field="problem")
    return problem.quiz


def sheet_from_form(quiz: Quiz, form: Mapping[str, Sequence[str]]) -> str:
    """The JSON answer sheet for the values a quiz form posted (`form` maps a field to all
    its values, as werkzeug's MultiDict.to_dict(flat=False) gives). An empty field is an
    unanswered question; a number that does not parse is sent as typed, for the judge to
    say why it is not a number."""
    sheet: dict[str, object] = {}
    for question in quiz.questions:
        values = [v.strip() for v in form.get(FIELD_PREFIX + question.id, []) if v.strip()]
        if question.type is QuestionType.CHOICES:
            sheet[question.id] = sorted(values)
        elif not values:
            sheet[question.id] = None
        elif question.type is QuestionType.NUMBER:
            sheet[question.id] = _number(values[0])
        else:
            sheet[question.id] = values[0]
    return json.dumps(sheet, ensure_ascii=False, indent=2) + "\n"


def shown(question: Question, value: object) -> str | list[str]:
    """A stored answer as the form shows it again: a list of option ids for a choose-all
    question, else text ("" for anything that is not a plain answer)."""
    if question.type is QuestionType.CHOICES:
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return str(value)


def _number(text: str) -> object:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if value == value and abs(value) != float("inf") else text


def last_answers(db: Session, user_id: int, slug: str) -> dict[str, object]:
    """What the learner answered in their latest submission to the quiz ({} if none, or if
    it was not a JSON object): the form starts from it."""
    code = db.scalar(
        select(Submission.code)
        .where(Submission.user_id == user_id, Submission.problem_slug == slug)
        .order_by(Submission.id.desc())
        .limit(1)
    )
    try:
        answers = json.loads(code) if code else {}
    except (ValueError, RecursionError):  # a sheet nested past the decoder's depth is no sheet
        return {}
    return answers if isinstance(answers, dict) else {}


def reveal(db: Session, user_id: int, problem: ProblemSpec, question_id: str) -> dict[str, str]:
    """Record that the learner gave up on `question_id` and return its explanation."""
    quiz = quiz_of(problem)
    if quiz.question(question_id) is None:
        raise NotFound("unknown_question", say("err_unknown_question", id=question_id))
    # Insert or keep the first: a double-clicked give-up is one row, never a unique-key error.
    keys = {"user_id": user_id, "problem_slug": problem.slug, "question_id": question_id}
    put_row(db, QuizReveal, keys)
    return dict(quiz.keys[question_id].explanation)


def revealed(db: Session, user_id: int, slug: str) -> set[str]:
    """The questions of `slug` the learner has given up on."""
    return set(
        db.scalars(
            select(QuizReveal.question_id).where(
                QuizReveal.user_id == user_id, QuizReveal.problem_slug == slug
            )
        )
    )


def first_reveal(db: Session, user_id: int, slug: str) -> datetime | None:
    """When the learner first gave up on a question of `slug`; later submissions score 0."""
    return db.scalar(
        select(func.min(QuizReveal.revealed_at)).where(
            QuizReveal.user_id == user_id, QuizReveal.problem_slug == slug
        )
    )


__all__ = [
    "first_reveal", "last_answers", "quiz_of", "reveal", "revealed", "sheet_from_form", "shown",
]  # fmt: skip
