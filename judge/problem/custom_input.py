"""A learner's own input for a problem: JSON read strictly, shaped like a public case's
arguments and within the rules its problem.toml declares (`[input]`,
judge/problem/input_rules.py), then made a `Case` the judge runs like any public one ("Try
your own input", `judge run --input`).

The arguments are chosen by the learner and reach the reference, so they are refused here,
on the trusted side and before anything runs, with a sentence that says why in both
languages: not JSON, too large, the wrong shape, or the problem's rule it breaks.
"""

from __future__ import annotations

import json
import math

from judge.errors import InputRefused
from judge.messages import Message, raw, say
from judge.problem.cases import Case, load_module, public_cases
from judge.problem.checkers import CheckSpec
from judge.problem.input_rules import kinds_said
from judge.problem.spec import ProblemSpec
from judge.record import record

# The name the custom case runs under, in reports and messages.
CUSTOM_CASE = "custom"
# A custom input is typed or pasted: a public case's arguments are a few hundred bytes,
# and this keeps a learner's run as cheap for the server as a public case.
MAX_INPUT_BYTES = 64 << 10
# The deepest nesting an input may have: a public case's arguments are two or three levels
# deep, and the wire codec and pickling between processes recurse per level.
MAX_DEPTH = 64
# The longest int an input may write: Python reads at most 4300 digits, far past any size.
MAX_INT_DIGITS = 1000

# A value's kind, in the words of a problem's input rules (judge/problem/input_rules.py).
_JSON_TYPES = {
    dict: "object",
    list: "list",
    str: "string",
    bool: "bool",
    int: "number",
    float: "number",
    type(None): "null",
}


@record
class ArgsShape:
    """What the public cases' arguments look like: their JSON type, and for an object the
    keys every case has, the keys some case has, and each key's JSON types."""

    kind: str
    required: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    value_kinds: tuple[tuple[str, frozenset[str]], ...] = ()

    @classmethod
    def of(cls, examples: list[object]) -> ArgsShape:
        kinds = {_kind(args) for args in examples}
        if len(kinds) != 1 or "object" not in kinds:  # a list or a number: the type only
            return cls(kinds.pop() if len(kinds) == 1 else "")
        keys = [set(args) for args in examples if isinstance(args, dict)]
        values: dict[str, set[str]] = {}
        for args in examples:
            assert isinstance(args, dict)  # every example is an object (kinds above)
            for key, value in args.items():
                values.setdefault(key, set()).add(_kind(value))
        return cls(
            "object",
            frozenset(set.intersection(*keys)),
            frozenset(set.union(*keys)),
            tuple((key, frozenset(found)) for key, found in sorted(values.items())),
        )

    def problem_with(self, args: object) -> Message | None:
        """Why `args` do not look like a public case's arguments, or None."""
        kind = _kind(args)
        if self.kind and kind != self.kind:
            expected, got = kinds_said((self.kind,)), kinds_said((kind,))
            return say("input.wrong_type", expected=expected, got=got)
        if self.kind != "object":
            return None
        assert isinstance(args, dict)
        missing = sorted(self.required - set(args))
        if missing:
            return say("input.missing_key", key=repr(missing[0]))
        unknown = sorted(set(args) - self.allowed)
        if unknown:
            return say("input.unknown_key", key=repr(unknown[0]), keys=_listed(self.allowed))
        for key, kinds in self.value_kinds:
            found = _kind(args[key]) if key in args else None
            if found is not None and found not in kinds and "null" not in kinds:
                expected = kinds_said(tuple(sorted(kinds)))
                said = kinds_said((found,))
                return say("input.wrong_value_type", key=repr(key), expected=expected, got=said)
        return None


@record
class CustomInput:
    """A learner's arguments for one problem, checked: run them as `case`."""

    args: object
    case: Case

    @classmethod
    def from_text(cls, problem: ProblemSpec, text: str) -> CustomInput:
        """Read JSON text (a file, a request's field); InputRefused says why not."""
        return cls.from_args(problem, parse_input(text))

    @classmethod
    def from_args(cls, problem: ProblemSpec, args: object) -> CustomInput:
        """Arguments already decoded (a JSON API's body); InputRefused says why not."""
        try:
            size = len(json.dumps(args, allow_nan=False))
        except (TypeError, ValueError, RecursionError):
            raise InputRefused(say("input.not_json", where=raw(""))) from None
        if size > MAX_INPUT_BYTES:
            raise InputRefused(say("input.too_large", limit=f"{MAX_INPUT_BYTES:,}"))
        driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
        public = public_cases(problem, driver)
        examples = [case for case in public if case.timed is None] or public
        problem_with = ArgsShape.of([case.args for case in examples]).problem_with(args)
        if problem_with is not None:
            raise InputRefused(say("input.wrong_shape", reason=problem_with))
        refused = problem.input_rules().problem_with(args)
        if refused is not None:
            raise InputRefused(say("input.refused", reason=refused))
        return cls(args, Case(CUSTOM_CASE, args, _check_of(problem, examples), public=True))


def parse_input(text: str) -> object:
    """JSON text as the arguments it says, before anything about the problem is asked: what
    a server checks where the text arrives. InputRefused says why not: too large, not JSON,
    a number no float or int here holds (1e400 would be infinity), text that is not Unicode
    (it could be stored nowhere), or nesting deeper than MAX_DEPTH."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
        raise InputRefused(say("input.too_large", limit=f"{MAX_INPUT_BYTES:,}"))
    try:
        args = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded_int
        )
    except _OutOfRange as exc:
        raise InputRefused(say("input.number_out_of_range", number=exc.number)) from None
    except (ValueError, RecursionError) as exc:
        where = raw("")
        if isinstance(exc, json.JSONDecodeError):
            where = say("input.at", line=exc.lineno, column=exc.colno)
        raise InputRefused(say("input.not_json", where=where)) from None
    _check_values(args)
    return args


def _check_values(args: object) -> None:
    """Refuse deep nesting and text no UTF-8 encoder takes, walking without recursion."""
    stack: list[tuple[object, int]] = [(args, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputRefused(say("input.too_deep", depth=MAX_DEPTH))
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_text(key)
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputRefused(say("input.bad_text")) from None


class _OutOfRange(ValueError):
    def __init__(self, number: str) -> None:
        super().__init__(number)
        self.number = number if len(number) <= 40 else number[:37] + "..."


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRange(text)
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _OutOfRange(text)
    return int(text)


def _check_of(problem: ProblemSpec, examples: list[Case]) -> CheckSpec:
    """The check the public cases share (a problem may set it per case), else the default."""
    checks = {case.check for case in examples}
    return checks.pop() if len(checks) == 1 else problem.checker


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _listed(names: frozenset[str]) -> str:
    return ", ".join(sorted(names))


def _no_constant(name: str) -> object:
    """NaN and Infinity are not JSON: refused like any other text that is not."""
    raise ValueError(f"{name} is not JSON")
