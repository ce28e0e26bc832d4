"""A quiz submission: JSON text `{question id: answer}`, read strictly.

    {"what-is-cached": ["k", "v"], "prefill-bound": "compute", "tokens": "n * p", "sum": 599500}

A number for a number question, an option id (a string) for a choice, a list of option ids
for a multiple choice, an expression (a string) for an expression question. `null` or a
missing question is "not answered" (WA). Keys that begin with `_` are notes for people and
tools (`_expect` in a known-wrong sheet) and are ignored. A sheet that is not such an
object is a SheetError (the run's CE); an answer of the wrong shape is an AnswerError (that
question's CE). Both say exactly what is wrong; nothing else escapes.
"""

from __future__ import annotations

import json

from judge.errors import JudgeError
from judge.quiz.expression import Expression, ExpressionError, Number, parse_expression
from judge.quiz.questions import Question, QuestionType
from judge.record import record

Answer = Number | str | frozenset[str] | Expression


class SheetError(JudgeError):
    """The submission is not a JSON object of answers to this quiz's questions."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(message)


class AnswerError(ValueError):
    """One answer has the wrong shape for its question."""


@record
class AnswerSheet:
    answers: dict[str, object]  # question id -> the JSON value given (never null)


def parse_sheet(text: str, question_ids: tuple[str, ...]) -> AnswerSheet:
    """The answers in `text`, keyed by question id; raises SheetError saying why not."""
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise SheetError(
            f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", exc.lineno
        ) from None
    except SheetError:
        raise
    except (ValueError, RecursionError):  # an integer of thousands of digits; deep nesting
        raise SheetError(
            "not JSON this judge reads (a number too long, or nesting too deep)"
        ) from None
    if type(data) is not dict:
        raise SheetError("the answers must be one JSON object: {question id: answer, ...}")
    answers = {}
    for key, value in data.items():
        if key.startswith("_"):
            continue
        if key not in question_ids:
            raise SheetError(
                f"{key[:60]!r} is not a question of this quiz; its questions are "
                + ", ".join(question_ids)
            )
        if value is not None:
            answers[key] = value
    return AnswerSheet(answers)


def _no_constant(name: str) -> object:
    raise SheetError(f"{name} is not a number JSON allows")


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise SheetError(f"{key[:60]!r} is given twice")
        out[key] = value
    return out


def read_answer(question: Question, value: object) -> Answer:
    """The answer in its question's type; AnswerError says what shape was expected."""
    qtype = question.type
    if qtype is QuestionType.NUMBER:
        if type(value) not in (int, float):
            raise AnswerError(f"answer with a number, not {_kind(value)}")
        return value  # type: ignore[return-value]
    if qtype is QuestionType.CHOICE:
        if type(value) is not str:
            raise AnswerError(f"answer with one option id (a string), not {_kind(value)}")
        return _option(question, value)
    if qtype is QuestionType.CHOICES:
        if type(value) is not list or any(type(v) is not str for v in value):
            raise AnswerError(f"answer with a list of option ids, not {_kind(value)}")
        chosen = [_option(question, v) for v in value]
        if len(set(chosen)) != len(chosen):
            raise AnswerError("an option is listed twice")
        return frozenset(chosen)
    if type(value) is not str:
        raise AnswerError(
            f'answer with an expression in a string (such as "n + 1"), not {_kind(value)}'
        )
    try:
        return parse_expression(value, question.variables)
    except ExpressionError as exc:
        raise AnswerError(str(exc)) from None


def _option(question: Question, value: str) -> str:
    if value not in question.option_ids():
        raise AnswerError(
            f"{value[:40]!r} is not an option here; the options are "
            + ", ".join(question.option_ids())
        )
    return value


def _kind(value: object) -> str:
    names = {bool: "true/false", int: "a number", float: "a number", str: "a string"}
    names |= {list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)
