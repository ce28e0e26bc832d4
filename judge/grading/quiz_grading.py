"""Judging a quiz: each answer against its key, in the trusted process (nothing is run).

sheet  = parse_sheet(source, question ids)        # not {id: answer}: the run's CE
answer = read_answer(question, value)             # the wrong shape: that question's CE
result = AC or WA, by the question's type         # a message that never gives the answer away

The browser has the questions and, for an expression question, the expected values at the
public points only: it checks every answer's shape and the expressions there, and leaves
number and choice questions to the server (verdict None, "checked when you submit").
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from judge.errors import BadReference
from judge.grading.report import CaseResult
from judge.messages import Message, raw, say
from judge.quiz.answer_sheet import Answer, AnswerError, SheetError, parse_sheet, read_answer
from judge.quiz.expression import Expression, ExpressionError, Number
from judge.quiz.questions import Key, Question, QuestionType, Quiz, Tolerance, expected_at
from judge.record import default, record
from judge.verdict import Verdict, overall

# A question's verdict (None: not checked here), message, and explanation (right answers only).
Judgement = tuple[Verdict | None, Message, dict[str, str] | None]
Grade = Callable[[Question, Answer], Judgement]

NOT_ANSWERED = say("quiz.not_answered")
AT_SUBMIT = say("quiz.at_submit").en


@record
class QuizOutcome:
    """A judged answer sheet; `compile_error` ({"kind": "answers", "line", "message"}) when the
    sheet itself is unreadable, and then there are no cases."""

    verdict: Verdict
    cases: tuple[CaseResult, ...]
    compile_error: dict[str, object] | None = None
    time_ms: float = 0.0


@record
class PublicQuestion:
    """A question as the browser has it: an expression question's public points come with
    their expected values and the tolerance; no other question carries any answer."""

    question: Question
    expected: tuple[Number, ...] = ()  # one per question.public_points
    tolerance: Tolerance = default(factory=Tolerance)

    @classmethod
    def from_bundle(cls, data: dict[str, object]) -> PublicQuestion:
        plain = dict(data)
        points = plain.pop("public_points", None)
        tolerance = plain.pop("tolerance", None)
        if points is not None:
            plain["public_points"] = [p["values"] for p in points]  # type: ignore[attr-defined]
        points = points or []
        question = Question.from_dict(plain, "bundle", str(data.get("id")))
        expected = tuple(p["expected"] for p in points)  # type: ignore[attr-defined]
        tol = Tolerance(**tolerance) if isinstance(tolerance, dict) else Tolerance()
        return cls(question, expected, tol)


def judge_answers(quiz: Quiz, source: str, seed: int) -> QuizOutcome:
    """Every question of `quiz` judged on the sheet `source`; `seed` draws hidden points."""
    return _judge(quiz.questions, source, lambda q, a: _grade(q, quiz.keys[q.id], a, seed))


def judge_public_answers(questions: tuple[PublicQuestion, ...], source: str) -> QuizOutcome:
    """What the browser can judge: shapes, and expressions at their public points."""
    public = {p.question.id: p for p in questions}
    outcome = _judge(
        tuple(p.question for p in questions), source, lambda q, a: _check_public(public[q.id], a)
    )
    if outcome.compile_error is None and not any(c.verdict for c in outcome.cases):
        # Every answer has its shape and nothing here can be checked further.
        return QuizOutcome(Verdict.AC, outcome.cases, None, outcome.time_ms)
    return outcome


def _judge(questions: tuple[Question, ...], source: str, grade: Grade) -> QuizOutcome:
    start = time.perf_counter()
    try:
        sheet = parse_sheet(source, tuple(q.id for q in questions))
    except SheetError as exc:
        error: dict[str, object] = {"kind": "answers", "line": exc.line, "message": str(exc)}
        return QuizOutcome(Verdict.CE, (), error)
    results = []
    for question in questions:
        t0 = time.perf_counter()
        verdict, message, explanation = _one(question, sheet.answers.get(question.id), grade)
        elapsed = (time.perf_counter() - t0) * 1000
        results.append(
            CaseResult.saying(
                message,
                name=question.id,
                public=True,
                verdict=verdict,
                time_ms=elapsed,
                explanation=explanation,
            )
        )
    verdict = overall([r.verdict for r in results if r.verdict is not None])
    total = (time.perf_counter() - start) * 1000
    return QuizOutcome(verdict, tuple(results), None, total)


def _one(question: Question, value: object, grade: Grade) -> Judgement:
    if value is None:
        return Verdict.WA, NOT_ANSWERED, None
    try:
        answer = read_answer(question, value)
    except AnswerError as exc:
        return Verdict.CE, raw(str(exc)), None
    return grade(question, answer)


def _grade(question: Question, key: Key, answer: Answer, seed: int) -> Judgement:
    """The full judgement, with the key; the explanation only for a right answer."""
    qtype = question.type
    if qtype is QuestionType.NUMBER:
        ok = key.tolerance.admits(answer, key.answer)  # type: ignore[arg-type]
        wrong = say("quiz.tolerance" if key.tolerance.allows_error else "quiz.wrong_number")
    elif qtype is QuestionType.CHOICE:
        ok, wrong = answer == key.answer, say("quiz.wrong_option")
    elif qtype is QuestionType.CHOICES:
        ok, wrong = answer == key.answer, say("quiz.wrong_options")
    else:
        miss = _expression_miss(question, key, answer, seed)  # type: ignore[arg-type]
        ok, wrong = miss is None, miss or raw("")
    if ok:
        return Verdict.AC, say("quiz.right"), dict(key.explanation)
    return Verdict.WA, wrong, None


def _expression_miss(question: Question, key: Key, answer: Expression, seed: int) -> Message | None:
    """Where the learner's expression first disagrees with the key: public points are named,
    the judge's own points (fixed in answers.toml, drawn from the seed) never are."""
    public = [(p, expected_at(key, p)) for p in question.public_points]
    miss = _first_miss(answer, public, key.tolerance, named=True)
    if miss is not None:
        return miss
    hidden = hidden_points(question, key, seed)
    return _first_miss(answer, [(p, _reference_at(key, p)) for p in hidden], key.tolerance, False)


def hidden_points(question: Question, key: Key, seed: int) -> list[dict[str, Number]]:
    """An expression question's hidden points for `seed`: the fixed ones, then those drawn."""
    hidden = list(key.points)
    if key.draw is not None:
        hidden += key.draw.points(random.Random(f"{seed}/{question.id}"))
    return hidden


def _reference_at(key: Key, point: dict[str, Number]) -> Number:
    try:
        return expected_at(key, point)
    except ExpressionError as exc:  # a drawn point the load-time sample missed
        raise BadReference(
            f"{key.question}: the reference has no value at {point}: {exc}"
        ) from None


def _first_miss(
    answer: Expression,
    points: list[tuple[dict[str, Number], Number]],
    tolerance: Tolerance,
    named: bool,
) -> Message | None:
    for point, want in points:
        where = say("quiz.at_point", point=", ".join(f"{k}={v}" for k, v in point.items()))
        if not named:
            where = say("quiz.at_hidden_point")
        try:
            got = answer.evaluate(point)
        except ExpressionError as exc:
            return say("quiz.no_value", where=where, error=str(exc))
        if not tolerance.admits(got, want):
            if named:
                return say("quiz.differs", where=where, got=f"{got:.12g}")
            return say("quiz.differs_hidden", where=where)
    return None


def _check_public(public: PublicQuestion, answer: Answer) -> Judgement:
    question = public.question
    if question.type is not QuestionType.EXPRESSION or not question.public_points:
        return None, say("quiz.at_submit"), None
    points = list(zip(question.public_points, public.expected, strict=True))
    miss = _first_miss(answer, points, public.tolerance, named=True)  # type: ignore[arg-type]
    if miss is not None:
        return Verdict.WA, miss, None
    return Verdict.AC, say("quiz.public_right"), None
