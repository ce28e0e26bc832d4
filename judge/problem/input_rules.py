"""What a problem allows as arguments: its `[input]` declaration in problem.toml, checked
on a learner's own input before the reference runs (judge/problem/custom_input.py: `judge
run --input`, the web's "Try your input", and so the browser's, which asks the server).

One declaration per problem, read only when an input is checked (never on a judging's
path). Two parts:

    [input.args]                       # a path into the arguments = its rule
    prompt_len = { type = "int", min = 1, max = 1_000_000 }
    "config.num_hidden_layers" = { type = "int", min = 1, max = 1024 }
    "events[]" = { type = "object" }             # [] is every item of a list
    "events[].op" = { choices = ["arrive", "grow", "finish"] }
    "ops[][1]" = { type = "int", min = 0, optional = true }   # [N] is the N-th item

    [[input.relations]]                # what one argument says about another
    rule = "pool_tokens % block_size == 0"
    en = "pool_tokens must be a multiple of block_size"
    zh = "pool_tokens 必须是 block_size 的整数倍"
    breaks = { pool_tokens = 250 }     # a public case with this merged in breaks the rule
    each = "events[]"                  # optional: the rule holds for every item

A rule's keys: `type` ("int", "number", "bool", "string", "list", "object", "null", or a
list of them), `min`/`max` (a number's bounds), `min_len`/`max_len` (a list's or a
string's length), `choices`, `optional` (the path may be absent; absent is refused
otherwise). A relation's `rule` is an expression over the argument names: arithmetic,
comparisons, `and`/`or`/`not`, `in`, literals, subscripts, `.key` for an object's key,
comprehensions, and len, min, max, sum, all, any, abs, set, sorted, range. `args` names
the whole arguments (`'pad' in args`: is the key there); in an `each` rule the item's keys
(and `item`) join the arguments' names. Every refusal names the argument (its concrete
path, `events[3].prompt`) and the rule, in both languages.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

from judge.errors import SpecError
from judge.messages import Message, say
from judge.record import record

TYPES = ("int", "number", "bool", "string", "list", "object", "null")
RULE_KEYS = frozenset({"type", "min", "max", "min_len", "max_len", "choices", "optional"})
RELATION_KEYS = frozenset({"rule", "en", "zh", "breaks", "each"})
# One step of a path: `.key` (no dot first), `[]` or `[N]`.
_SEGMENT = re.compile(r"(?:(?<=^)|\.)(?P<key>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d*)\]")
_MISSING = object()


@record
class Step:
    """One step of a path: an object's key, every list item (`[]`), or the N-th (`[N]`)."""

    key: str | None = None
    index: int | None = None  # None with key None: every item

    def __str__(self) -> str:
        if self.key is not None:
            return self.key
        return "[]" if self.index is None else f"[{self.index}]"


@record
class ArgRule:
    """The rule for every value at one path."""

    path: str
    steps: tuple[Step, ...]
    types: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    min_len: int | None = None
    max_len: int | None = None
    choices: tuple[object, ...] | None = None
    optional: bool = False

    def problem_with(self, args: object) -> Message | None:
        """Why a value at this path breaks the rule (the first one), or None."""
        for where, value in _values(args, self.steps, ""):
            said = self._judge(where, value)
            if said is not None:
                return said
        return None

    def _judge(self, where: str, value: object) -> Message | None:
        if value is _MISSING:
            return None if self.optional else say("input.rule_missing", path=where)
        if self.types and not any(_is(value, t) for t in self.types):
            expected = kinds_said(self.types)
            return say("input.rule_type", path=where, expected=expected, got=_shown(value))
        if self.choices is not None and value not in self.choices:
            listed = ", ".join(_shown(c) for c in self.choices)
            return say("input.rule_choices", path=where, choices=listed, got=_shown(value))
        if _is(value, "number"):
            if self.low is not None and value < self.low:  # type: ignore[operator]
                return say("input.rule_min", path=where, low=_number(self.low), got=_shown(value))
            if self.high is not None and value > self.high:  # type: ignore[operator]
                return say("input.rule_max", path=where, high=_number(self.high), got=_shown(value))
        if isinstance(value, (list, str)):
            if self.min_len is not None and len(value) < self.min_len:
                return say("input.rule_min_len", path=where, low=self.min_len, got=len(value))
            if self.max_len is not None and len(value) > self.max_len:
                return say("input.rule_max_len", path=where, high=self.max_len, got=len(value))
        return None


@record
class Relation:
    """A rule over several arguments, said in both languages by the problem's author."""

    rule: str
    en: str
    zh: str
    breaks: dict[str, object]
    each: tuple[Step, ...] | None = None
    each_path: str = ""

    def problem_with(self, args: object) -> Message | None:
        expression = _compile(self.rule, "problem.toml", "rule")  # vetted when it loaded
        top = (dict(args) if isinstance(args, dict) else {}) | {"args": args}
        if self.each is None:
            scopes: Iterator[tuple[str, object]] = iter([("", args)])
        else:
            scopes = _values(args, self.each, "")
        for where, scope in scopes:
            if scope is _MISSING:
                continue
            names = top
            if self.each is not None:  # the item's own keys over the arguments' names
                names = top | (scope if isinstance(scope, dict) else {}) | {"item": scope}
            try:
                held = bool(_evaluate(expression.body, names))
            except (ArithmeticError, LookupError, TypeError, ValueError, _Unknown):
                held = False
            if not held:
                said = say("input.both", en=self.en, zh=self.zh)
                if where:
                    return say("input.relation_at", path=where, rule=said)
                return said
        return None


@record
class InputRules:
    """A problem's declared input rules; empty where problem.toml has no [input]."""

    args: tuple[ArgRule, ...] = ()
    relations: tuple[Relation, ...] = ()

    @classmethod
    def of(cls, toml_path: str, text: str) -> InputRules:
        """The `[input]` table of a problem.toml's text; SpecError names a bad field."""
        data = tomllib.loads(text)
        table = data.get("input")
        if table is None:
            return cls()
        if type(table) is not dict:
            raise SpecError(toml_path, "input", "must be a table")
        unknown = set(table) - {"args", "relations"}
        if unknown:
            raise SpecError(toml_path, f"input.{sorted(unknown)[0]}", "unknown key")
        declared = table.get("args", {})
        if type(declared) is not dict:
            raise SpecError(toml_path, "input.args", "must be a table of path = rule")
        args = tuple(_arg_rule(toml_path, path, rule) for path, rule in declared.items())
        listed = table.get("relations", [])
        if type(listed) is not list:
            raise SpecError(toml_path, "input.relations", "must be an array of tables")
        relations = tuple(_relation(toml_path, i, r) for i, r in enumerate(listed))
        return cls(args, relations)

    def problem_with(self, args: object) -> Message | None:
        """Why `args` break this problem's rules (the first rule broken, in declared order:
        every argument's own rule before any relation), or None."""
        for rule in self.args:
            said = rule.problem_with(args)
            if said is not None:
                return said
        for relation in self.relations:
            said = relation.problem_with(args)
            if said is not None:
                return said
        return None


# --- reading the declaration -------------------------------------------------------


def _steps(toml_path: str, field: str, path: str) -> tuple[Step, ...]:
    steps: list[Step] = []
    at = 0
    while at < len(path):
        found = _SEGMENT.match(path, at)
        if found is None or (found.group("key") and at and path[at] != "."):
            raise SpecError(toml_path, field, f"{path!r} is not a path like a.b[].c or a[0]")
        if found.group("key"):
            steps.append(Step(key=found.group("key")))
        else:
            index = found.group("index")
            steps.append(Step(index=int(index) if index else None))
        at = found.end()
    if not steps:
        raise SpecError(toml_path, field, "an empty path")
    return tuple(steps)


def _table(
    toml_path: str, field: str, value: object, keys: frozenset[str], shape: str
) -> dict[str, Any]:
    """`value` as a table of known keys only; SpecError names the field or the unknown key."""
    if type(value) is not dict:
        raise SpecError(toml_path, field, f"must be a table {shape}")
    unknown = set(value) - keys
    if unknown:
        raise SpecError(toml_path, f"{field}.{sorted(unknown)[0]}", "unknown key")
    return value


def _arg_rule(toml_path: str, path: str, given: object) -> ArgRule:
    field = f"input.args.{path}"
    rule = _table(toml_path, field, given, RULE_KEYS, 'such as { type = "int", min = 0 }')
    kinds = rule.get("type", [])
    types = (kinds,) if type(kinds) is str else kinds
    if type(types) not in (tuple, list) or any(t not in TYPES for t in types):
        listed = ", ".join(TYPES)
        raise SpecError(toml_path, f"{field}.type", f"must be one of {listed} (or a list of them)")
    bounds = {}
    for key in ("min", "max"):
        if key in rule and (type(rule[key]) not in (int, float) or not math.isfinite(rule[key])):
            raise SpecError(toml_path, f"{field}.{key}", "must be a finite number")
        bounds[key] = rule.get(key)
    for key in ("min_len", "max_len"):
        if key in rule and (type(rule[key]) is not int or rule[key] < 0):
            raise SpecError(toml_path, f"{field}.{key}", "must be an integer >= 0")
    choices = rule.get("choices")
    if choices is not None and (type(choices) is not list or not choices):
        raise SpecError(toml_path, f"{field}.choices", "must be a non-empty array")
    optional = rule.get("optional", False)
    if type(optional) is not bool:
        raise SpecError(toml_path, f"{field}.optional", "must be true or false")
    return ArgRule(
        path,
        _steps(toml_path, field, path),
        tuple(types),
        bounds["min"],
        bounds["max"],
        rule.get("min_len"),
        rule.get("max_len"),
        None if choices is None else tuple(choices),
        optional,
    )


def _relation(toml_path: str, index: int, given: object) -> Relation:
    field = f"input.relations[{index}]"
    table = _table(toml_path, field, given, RELATION_KEYS, "with rule, en, zh and breaks")
    for key in ("rule", "en", "zh"):
        if type(table.get(key)) is not str or not table[key]:
            raise SpecError(toml_path, f"{field}.{key}", "must be a non-empty string")
    _compile(table["rule"], toml_path, f"{field}.rule")
    breaks = table.get("breaks")
    if type(breaks) is not dict or not breaks:
        raise SpecError(
            toml_path,
            f"{field}.breaks",
            "must be a table of arguments that, merged into a public case, break the rule",
        )
    each = table.get("each")
    if each is not None and type(each) is not str:
        raise SpecError(toml_path, f"{field}.each", "must be a path such as events[]")
    steps = None if each is None else _steps(toml_path, f"{field}.each", each)
    return Relation(table["rule"], table["en"], table["zh"], breaks, steps, each or "")


# --- the expressions of relations ----------------------------------------------------


def _times(a: Any, b: Any) -> Any:
    """Numbers only: a learner's string or list times a large number would be a copy as
    large, made in the judge's own process."""
    if type(a) not in (int, float) or type(b) not in (int, float):
        raise TypeError("only numbers multiply in a rule")
    return a * b


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _times,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_FUNCTIONS: dict[str, Callable[..., object]] = {
    "len": len,
    "min": min,
    "max": max,
    "sum": sum,
    "all": all,
    "any": any,
    "abs": abs,
    "set": set,
    "sorted": sorted,
    "range": range,
}
_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.BinOp,
    ast.Compare, ast.Call, ast.Name, ast.Load, ast.Store, ast.Constant, ast.Attribute,
    ast.Subscript, ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.GeneratorExp,
    ast.SetComp, ast.comprehension, ast.IfExp,
    *_BINARY, *_COMPARE,
)  # fmt: skip
_compiled: dict[str, ast.Expression] = {}


class _Unknown(Exception):
    """A name the arguments do not have (a key the learner left out)."""


def _compile(rule: str, file: str, field: str) -> ast.Expression:
    if rule in _compiled:
        return _compiled[rule]
    try:
        tree = ast.parse(rule, mode="eval")
    except SyntaxError as exc:
        raise SpecError(file, field, f"is not an expression: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise SpecError(file, field, f"may not use {type(node).__name__}")
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and not node.keywords
        ):
            raise SpecError(file, field, f"may call only {', '.join(_FUNCTIONS)}")
    _compiled[rule] = tree
    return tree


def _evaluate(node: ast.AST, names: dict[str, object]) -> object:
    """One node's value; every node kind here passed _compile's list."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise _Unknown(node.id)
    if isinstance(node, ast.BoolOp):
        values = (_evaluate(v, names) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand, names)
        return (not value) if isinstance(node.op, ast.Not) else -value  # type: ignore[operator]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_evaluate(node.left, names), _evaluate(node.right, names))
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, names)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _evaluate(right_node, names)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        branch = node.body if _evaluate(node.test, names) else node.orelse
        return _evaluate(branch, names)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(_evaluate(a, names) for a in node.args))
    if isinstance(node, ast.Attribute):  # an object's key: config.head_dim
        container = _evaluate(node.value, names)
        if not isinstance(container, dict) or node.attr not in container:
            raise _Unknown(node.attr)
        return container[node.attr]
    if isinstance(node, ast.Subscript):
        return _evaluate(node.value, names)[_evaluate(node.slice, names)]  # type: ignore[index]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_evaluate(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return {_evaluate(k, names): _evaluate(v, names) for k, v in pairs if k is not None}
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        made = list(_comprehend(node.elt, list(node.generators), names))
        return set(made) if isinstance(node, ast.SetComp) else made
    raise TypeError(f"{type(node).__name__} is not evaluated here")


def _comprehend(
    element: ast.AST, generators: list[ast.comprehension], names: dict[str, object]
) -> Iterator[object]:
    first, rest = generators[0], generators[1:]
    if not isinstance(first.target, ast.Name):
        raise TypeError("a comprehension binds one name")
    for item in _evaluate(first.iter, names):  # type: ignore[attr-defined]
        scope = names | {first.target.id: item}
        if all(_evaluate(condition, scope) for condition in first.ifs):
            if rest:
                yield from _comprehend(element, rest, scope)
            else:
                yield _evaluate(element, scope)


# --- values at a path ----------------------------------------------------------------


def _values(value: object, steps: tuple[Step, ...], where: str) -> Iterator[tuple[str, object]]:
    """(concrete path, value) for every value `steps` reach; _MISSING where a key or an
    index is absent. A value of the wrong kind for the next step (a number where the path
    goes into an object) is yielded as it is, for the rule on the shorter path to refuse."""
    if not steps:
        yield where, value
        return
    step, rest = steps[0], steps[1:]
    if step.key is not None:
        if not isinstance(value, dict):
            return
        here = f"{where}.{step.key}" if where else step.key
        yield from _values(value.get(step.key, _MISSING), rest, here)
    elif step.index is None:
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _values(item, rest, f"{where}[{i}]")
    elif isinstance(value, list):
        item = value[step.index] if step.index < len(value) else _MISSING
        yield from _values(item, rest, f"{where}[{step.index}]")


def _is(value: object, kind: str) -> bool:
    if kind == "int":
        return type(value) is int
    if kind == "number":
        return type(value) in (int, float)
    if kind == "bool":
        return type(value) is bool
    if kind == "string":
        return type(value) is str
    if kind == "list":
        return type(value) is list
    if kind == "object":
        return type(value) is dict
    return value is None


def kinds_said(types: tuple[str, ...]) -> Message:
    """ "an integer", "a number or null", "a list, an object or null" (TYPES' names)."""
    words = [say(f"input.type_{kind}") for kind in types]
    if len(words) == 1:
        return words[0]
    rest = say("input.or", kind=words[-1])
    for word in reversed(words[1:-1]):
        rest = say("input.comma", kind=word, rest=rest)
    return say("input.either", first=words[0], rest=rest)


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else repr(value)


def _shown(value: object) -> str:
    """A value as the learner wrote it in JSON, kept short."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
