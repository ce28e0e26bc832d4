"""A quiz question's mark on the quiz page: how a Run at the public points, or the
learner's latest judged submission, took each answer, shown in place beside the question.

A Run is judged here, on the server, by the same core the browser runs on a quiz's public
bundle (`judge_public_answers`): it has the questions and the expected values at the
public points, never answers.toml, so a Run can only check the answers' forms and the
expressions at those points. The numbers on the page are the questions' order, 1-based, as
the page's list and `judge show` number them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.errors import SourceError
from judge.grading.quiz_grading import PublicQuestion, judge_public_answers
from judge.messages import case_message
from judge.quiz.questions import Quiz
from judge.run.source_check import validate_source
from judge.verdict import Verdict
from web.store.models import Submission, SubmissionStatus


@dataclass(frozen=True, slots=True)
class Mark:
    """One question's mark: its verdict ("AC", "WA", "CE"; None when a Run cannot check it,
    a number or a choice) and the judge's message in the page's language."""

    verdict: str | None
    message: str

    @property
    def wrong(self) -> bool:
        return self.verdict is not None and self.verdict != Verdict.AC.value


@dataclass(frozen=True, slots=True)
class QuizMarks:
    """Every question's mark from one Run or one submission (`submission_id` set), with the
    overall verdict and, for a sheet the judge could not read at all, its reason."""

    verdict: str | None
    by_question: dict[str, Mark]
    submission_id: int | None = None
    sheet_error: str | None = None

    @property
    def wrong_numbers(self) -> list[int]:
        return [i for i, mark in enumerate(self.by_question.values(), 1) if mark.wrong]


def question_numbers(quiz: Quiz) -> dict[str, int]:
    """Each question id -> its number on the page (1-based, in questions.toml's order)."""
    return {q.id: i for i, q in enumerate(quiz.questions, 1)}


def of_run(quiz: Quiz, sheet: str, lang: str) -> QuizMarks:
    """A Run: the sheet judged at the public points only, as the browser's judge would."""
    try:
        sheet = validate_source(sheet)  # the same 64 KiB as a submission's sheet
    except SourceError as exc:
        return QuizMarks(verdict=Verdict.CE.value, by_question={}, sheet_error=str(exc))
    public = tuple(PublicQuestion.from_bundle(q) for q in quiz.public_questions())
    outcome = judge_public_answers(public, sheet)
    cases = [case.to_dict() for case in outcome.cases]
    error = outcome.compile_error
    return QuizMarks(
        verdict=outcome.verdict.value,
        by_question=_marks(quiz, cases, lang),
        sheet_error=str(error["message"]) if error else None,
    )


def of_last_submission(
    db: Session, user_id: int, quiz: Quiz, slug: str, lang: str
) -> QuizMarks | None:
    """The learner's latest submission to the quiz, once judged; None before any, or while
    the latest still waits (its marks would belong to other answers than the form shows)."""
    row = db.execute(
        select(Submission.id, Submission.status, Submission.verdict, Submission.report_json)
        .where(Submission.user_id == user_id, Submission.problem_slug == slug)
        .order_by(Submission.id.desc())
        .limit(1)
    ).first()
    if row is None or row.status != SubmissionStatus.DONE or not row.report_json:
        return None
    try:
        report = json.loads(row.report_json)
    except ValueError:
        return None
    cases = report.get("cases") if isinstance(report, dict) else None
    error = report.get("compile_error") if isinstance(report, dict) else None
    return QuizMarks(
        verdict=row.verdict.value if row.verdict else None,
        by_question=_marks(quiz, cases if isinstance(cases, list) else [], lang),
        submission_id=row.id,
        sheet_error=str(error.get("message")) if isinstance(error, dict) else None,
    )


def _marks(quiz: Quiz, cases: list[Any], lang: str) -> dict[str, Mark]:
    """The cases that are questions of this quiz, in the quiz's order (a report of an older
    version of the quiz may name a question it no longer has: that one is left out)."""
    by_name = {c.get("name"): c for c in cases if isinstance(c, dict)}
    marks = {}
    for question in quiz.questions:
        case = by_name.get(question.id)
        if case is not None:
            verdict = case.get("verdict")
            marks[question.id] = Mark(str(verdict) if verdict else None, case_message(case, lang))
    return marks


__all__ = ["Mark", "QuizMarks", "of_last_submission", "of_run", "question_numbers"]
