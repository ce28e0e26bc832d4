"""A quiz problem's questions (questions.toml, public) and answer key (answers.toml, secret).

questions.toml goes to the browser; answers.toml never leaves the server or the CLI, like
reference.py. Both are validated on load: every mistake is a SpecError naming the file and
the field (`question[2].options`, `tokens-without-cache.answer`). Whether the key answers
every question is `judge check`'s to say (a question without an answer is the judge's
failure, IE, never the learner's).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import tomllib
from enum import Enum
from pathlib import Path

from judge.errors import SpecError
from judge.messages import LANGS
from judge.quiz.expression import FUNCTIONS, Expression, ExpressionError, Number, parse_expression
from judge.record import default, record

QUESTION_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")  # also a valid case name
VARIABLE_RE = re.compile(r"^[a-z][a-z0-9_]{0,15}$")
MAX_POINTS = 32  # fixed or drawn points of one expression question
DEFAULT_REL_TOL = 1e-9


class QuestionType(str, Enum):
    NUMBER = "number"  # a JSON number, within a tolerance
    CHOICE = "choice"  # one option id
    CHOICES = "choices"  # the exact set of option ids, as a list
    EXPRESSION = "expression"  # a formula in the declared variables, as a string

    def __str__(self) -> str:
        return self.value


@record
class Option:
    id: str
    text: dict[str, str]  # {"zh", "en"}


@record
class Question:
    id: str
    type: QuestionType
    prompt: dict[str, str]  # {"zh", "en"}: Markdown with $math$
    unit: dict[str, str] | None = None
    options: tuple[Option, ...] = ()
    variables: tuple[str, ...] = ()
    public_points: tuple[dict[str, Number], ...] = ()

    def option_ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.options)

    def to_dict(self) -> dict[str, object]:
        """questions.toml's content for this question, as plain data."""
        out: dict[str, object] = {"id": self.id, "type": self.type.value, "prompt": self.prompt}
        if self.unit is not None:
            out["unit"] = dict(self.unit)
        if self.options:
            out["options"] = [{"id": o.id, **o.text} for o in self.options]
        if self.type is QuestionType.EXPRESSION:
            out["variables"] = list(self.variables)
            out["public_points"] = [dict(p) for p in self.public_points]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, object], file: str, where: str) -> Question:
        """Validate one [[question]] table (or its copy in a bundle)."""
        f = _Table(data, file, where)
        qid = f.string("id")
        if not QUESTION_ID_RE.match(qid):
            raise SpecError(file, f"{where}.id", f"{qid!r} must be lowercase letters, digits, -")
        kind = f.string("type")
        try:
            qtype = QuestionType(kind)
        except ValueError:
            allowed = ", ".join(t.value for t in QuestionType)
            raise SpecError(file, f"{where}.type", f"{kind!r} must be one of {allowed}") from None
        choice = qtype in (QuestionType.CHOICE, QuestionType.CHOICES)
        expression = qtype is QuestionType.EXPRESSION
        f.only({"id", "type", "prompt", "unit"} | _TYPE_KEYS[qtype])
        variables = _variables(f) if expression else ()
        return cls(
            id=qid,
            type=qtype,
            prompt=f.texts("prompt"),
            unit=f.unit("unit"),
            options=_options(f) if choice else (),
            variables=variables,
            public_points=f.points("public_points", variables) if expression else (),
        )


_TYPE_KEYS = {
    QuestionType.NUMBER: set(),
    QuestionType.CHOICE: {"options"},
    QuestionType.CHOICES: {"options"},
    QuestionType.EXPRESSION: {"variables", "public_points"},
}


@record
class Tolerance:
    rel_tol: float = DEFAULT_REL_TOL
    abs_tol: float = 0.0

    def admits(self, got: Number, want: Number) -> bool:
        if got == want:
            return True
        try:
            return math.isclose(got, want, rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        except OverflowError:  # an int too large for a float: nowhere near
            return False

    @property
    def allows_error(self) -> bool:
        """False for an exact answer (a count): only equality is right."""
        return self.rel_tol > 0 or self.abs_tol > 0

    def to_dict(self) -> dict[str, float]:
        return {"rel_tol": self.rel_tol, "abs_tol": self.abs_tol}


@record
class Draw:
    """`count` points drawn from the judge's seed, each variable uniform in its range."""

    count: int
    ranges: dict[str, tuple[Number, Number]]

    def points(self, rng: random.Random) -> list[dict[str, Number]]:
        return [
            {
                name: rng.randint(lo, hi)
                if type(lo) is int and type(hi) is int
                else rng.uniform(lo, hi)
                for name, (lo, hi) in self.ranges.items()
            }
            for _ in range(self.count)
        ]


@record
class Key:
    """The answer to one question. `answer` is a number, an option id, a frozenset of option
    ids or an Expression, by the question's type; `points` and `draw` are an expression's
    hidden points (fixed, and drawn from the seed)."""

    question: str
    answer: Number | str | frozenset[str] | Expression
    explanation: dict[str, str]
    tolerance: Tolerance = default(factory=Tolerance)
    points: tuple[dict[str, Number], ...] = ()
    draw: Draw | None = None

    def sheet_value(self) -> object:
        """The answer as a learner would write it in the JSON answer sheet."""
        if isinstance(self.answer, Expression):
            return self.answer.text
        if isinstance(self.answer, frozenset):
            return sorted(self.answer)
        return self.answer


@record
class Quiz:
    questions: tuple[Question, ...]
    keys: dict[str, Key]  # question id -> its answer; judge check requires one per question

    def question(self, qid: str) -> Question | None:
        return next((q for q in self.questions if q.id == qid), None)

    def blank_sheet(self) -> str:
        """The starter: every question id with null (not answered yet)."""
        return _sheet({q.id: None for q in self.questions})

    def reference_sheet(self) -> str:
        """The answer key as an answer sheet: what `judge check` requires to be AC."""
        return _sheet({q.id: self.keys[q.id].sheet_value() for q in self.questions})

    def public_questions(self) -> list[dict[str, object]]:
        """What the browser gets: the questions, and for an expression question the expected
        value at each public point and the tolerance (no other answer ever)."""
        out = []
        for question in self.questions:
            data = question.to_dict()
            if question.type is QuestionType.EXPRESSION:
                key = self.keys[question.id]
                data["public_points"] = [
                    {"values": dict(p), "expected": expected_at(key, p)}
                    for p in question.public_points
                ]
                data["tolerance"] = key.tolerance.to_dict()
            out.append(data)
        return out


def expected_at(key: Key, point: dict[str, Number]) -> Number:
    """The reference expression's value at a point (validated on load to have one)."""
    return key.answer.evaluate(point)  # type: ignore[union-attr]


def _sheet(answers: dict[str, object]) -> str:
    return json.dumps(answers, ensure_ascii=False, indent=2) + "\n"


def load_quiz(folder: Path, qfile: str, afile: str) -> Quiz:
    """questions.toml and answers.toml of a quiz folder; `qfile` and `afile` name them in
    errors (`problems/self-test/answers.toml`)."""
    raw = _read_toml(folder / "questions.toml", qfile)
    unknown = set(raw) - {"question"}
    if unknown:
        raise SpecError(qfile, sorted(unknown)[0], "unknown key; questions are [[question]]")
    tables = raw.get("question")
    if type(tables) is not list or not tables or any(type(t) is not dict for t in tables):
        raise SpecError(qfile, "question", "must be one or more [[question]] tables")
    questions = tuple(
        Question.from_dict(t, qfile, f"question[{i}]") for i, t in enumerate(tables, 1)
    )
    ids = [q.id for q in questions]
    for qid in ids:
        if ids.count(qid) > 1:
            raise SpecError(qfile, "question.id", f"{qid!r} is used twice")
    answers = _read_toml(folder / "answers.toml", afile)
    keys = {}
    for qid, table in answers.items():
        question = next((q for q in questions if q.id == qid), None)
        if question is None:
            raise SpecError(afile, qid, "answers a question questions.toml does not have")
        if type(table) is not dict:
            raise SpecError(afile, qid, "must be a table")
        keys[qid] = _key(question, _Table(table, afile, qid))
    return Quiz(questions, keys)


def _key(question: Question, f: _Table) -> Key:
    qtype = question.type
    numeric = qtype in (QuestionType.NUMBER, QuestionType.EXPRESSION)
    allowed = {"answer", "explanation"} | ({"rel_tol", "abs_tol"} if numeric else set())
    f.only(allowed | ({"points", "draw"} if qtype is QuestionType.EXPRESSION else set()))
    tolerance = Tolerance(f.tol("rel_tol", DEFAULT_REL_TOL), f.tol("abs_tol", 0.0))
    explanation = f.texts("explanation")
    if qtype is QuestionType.NUMBER:
        return Key(question.id, f.number("answer"), explanation, tolerance)
    if qtype is QuestionType.CHOICE:
        return Key(question.id, f.option("answer", question.option_ids()), explanation)
    if qtype is QuestionType.CHOICES:
        chosen = frozenset(f.option_set("answer", question.option_ids()))
        return Key(question.id, chosen, explanation)
    try:
        expression = parse_expression(f.get("answer"), question.variables)
    except ExpressionError as exc:
        raise SpecError(f.file, f.name("answer"), str(exc)) from None
    points = f.points("points", question.variables) if "points" in f.data else ()
    draw = _draw(f, question.variables) if "draw" in f.data else None
    if not points and draw is None and not question.public_points:
        raise SpecError(f.file, f.name("points"), "an expression needs points to be checked on")
    key = Key(question.id, expression, explanation, tolerance, points, draw)
    _evaluates_everywhere(key, question, f)
    return key


def _evaluates_everywhere(key: Key, question: Question, f: _Table) -> None:
    """The reference expression has a value at every fixed point, at every corner of the
    drawn ranges and at a sample inside them, so a learner is not judged against an error
    (one a secret draw still finds is the judge's failure, IE)."""
    corners: list[dict[str, Number]] = [*question.public_points, *key.points]
    if key.draw is not None:
        names = list(key.draw.ranges)
        for ends in itertools.product(*key.draw.ranges.values()):
            corners.append(dict(zip(names, ends, strict=True)))
        corners += key.draw.points(random.Random(0))
    for point in corners:
        try:
            expected_at(key, point)
        except ExpressionError as exc:
            raise SpecError(f.file, f.name("answer"), f"at {_at(point)}: {exc}") from None


def _at(point: dict[str, Number]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def _variables(f: _Table) -> tuple[str, ...]:
    names = f.strings("variables")
    if not names or len(set(names)) != len(names):
        raise SpecError(f.file, f.name("variables"), "must list distinct variable names")
    for name in names:
        if not VARIABLE_RE.match(name) or name in FUNCTIONS:
            raise SpecError(f.file, f.name("variables"), f"{name!r} is not a plain short name")
    return tuple(names)


def _options(f: _Table) -> tuple[Option, ...]:
    value = f.get("options")
    if type(value) is not list or len(value) < 2 or any(type(v) is not dict for v in value):
        raise SpecError(f.file, f.name("options"), "must be two or more {id, zh, en} tables")
    options = []
    for i, item in enumerate(value, 1):
        o = _Table(item, f.file, f"{f.name('options')}[{i}]")
        o.only({"id", *LANGS})
        oid = o.string("id")
        if not QUESTION_ID_RE.match(oid):
            raise SpecError(f.file, o.name("id"), f"{oid!r} must be lowercase letters, digits, -")
        options.append(Option(oid, {lang: o.string(lang) for lang in LANGS}))
    ids = [o.id for o in options]
    if len(set(ids)) != len(ids):
        raise SpecError(f.file, f.name("options"), "option ids must be distinct")
    return tuple(options)


def _draw(f: _Table, variables: tuple[str, ...]) -> Draw:
    table = f.get("draw")
    if not isinstance(table, dict):
        raise SpecError(f.file, f.name("draw"), "must be a table {count = N, VAR = [LOW, HIGH]}")
    d = _Table(table, f.file, f.name("draw"))
    d.only({"count", *variables})
    count = d.get("count")
    if type(count) is not int or not 1 <= count <= MAX_POINTS:
        raise SpecError(f.file, d.name("count"), f"must be an integer in [1, {MAX_POINTS}]")
    ranges = {}
    for name in variables:
        bounds = d.get(name)
        if (
            type(bounds) is not list
            or len(bounds) != 2
            or any(type(b) not in (int, float) for b in bounds)
            or not bounds[0] <= bounds[1]
        ):
            raise SpecError(f.file, d.name(name), "must be [LOW, HIGH], numbers, LOW <= HIGH")
        ranges[name] = (bounds[0], bounds[1])
    return Draw(count, ranges)


def _read_toml(path: Path, file: str) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(file, None, f"invalid TOML: {exc}") from None


class _Table:
    """Typed access to one TOML table, errors naming file and field."""

    def __init__(self, data: dict[str, object], file: str, prefix: str) -> None:
        self.data, self.file, self.prefix = data, file, prefix

    def name(self, key: str) -> str:
        return f"{self.prefix}.{key}"

    def only(self, keys: set[str]) -> None:
        unknown = sorted(set(self.data) - keys)
        if unknown:
            raise SpecError(self.file, self.name(unknown[0]), "unknown key here")

    def get(self, key: str) -> object:
        if key not in self.data:
            raise SpecError(self.file, self.name(key), "missing")
        return self.data[key]

    def string(self, key: str) -> str:
        value = self.get(key)
        if type(value) is not str or not value.strip():
            raise SpecError(self.file, self.name(key), "must be a non-empty string")
        return value

    def strings(self, key: str) -> list[str]:
        value = self.get(key)
        if type(value) is not list or any(type(v) is not str for v in value):
            raise SpecError(self.file, self.name(key), "must be a list of strings")
        return list(value)

    def texts(self, key: str) -> dict[str, str]:
        """A {zh, en} table of non-empty strings."""
        value = self.get(key)
        if type(value) is not dict:
            raise SpecError(self.file, self.name(key), "must be a table with zh and en")
        t = _Table(value, self.file, self.name(key))
        t.only(set(LANGS))
        return {lang: t.string(lang) for lang in LANGS}

    def unit(self, key: str) -> dict[str, str] | None:
        """Optional: one string for both languages, or a {zh, en} table."""
        if key not in self.data:
            return None
        if type(self.data[key]) is str:
            text = self.string(key)
            return {lang: text for lang in LANGS}
        return self.texts(key)

    def number(self, key: str) -> Number:
        value = self.get(key)
        if type(value) not in (int, float) or not math.isfinite(value):  # type: ignore[arg-type]
            raise SpecError(self.file, self.name(key), "must be a finite number")
        return value  # type: ignore[return-value]

    def tol(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if type(value) not in (int, float) or not 0 <= value < 1e9:  # type: ignore[operator]
            raise SpecError(self.file, self.name(key), f"{value!r} must be a number >= 0")
        return float(value)  # type: ignore[arg-type]

    def option(self, key: str, options: tuple[str, ...]) -> str:
        value = self.string(key)
        if value not in options:
            raise SpecError(self.file, self.name(key), f"{value!r} is not an option")
        return value

    def option_set(self, key: str, options: tuple[str, ...]) -> list[str]:
        values = self.strings(key)
        bad = [v for v in values if v not in options]
        if bad or len(set(values)) != len(values):
            raise SpecError(self.file, self.name(key), "must list distinct option ids")
        return values

    def points(self, key: str, variables: tuple[str, ...]) -> tuple[dict[str, Number], ...]:
        """A list of {VAR = number, ...} tables, each giving every variable."""
        value = self.get(key)
        if type(value) is not list or len(value) > MAX_POINTS:
            raise SpecError(self.file, self.name(key), f"must be a list of <= {MAX_POINTS} points")
        for point in value:
            if (
                type(point) is not dict
                or set(point) != set(variables)
                or any(type(v) not in (int, float) for v in point.values())
            ):
                raise SpecError(
                    self.file, self.name(key), f"each point gives {', '.join(variables)}, numbers"
                )
        return tuple(dict(p) for p in value)
