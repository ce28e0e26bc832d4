"""A learner's short formula (a quiz answer such as `2 * layers * heads * dim`), as data.

Parsed with `ast` and evaluated by walking the tree here: never `eval`, `exec` or
`compile` to code. Allowed: int and float literals, the question's declared variables,
`+ - * / // % **`, unary `+`/`-`, parentheses, and `min(...)`/`max(...)`. The text, the
tree's depth, every value (literals and intermediate results) and every power are
bounded, so evaluation is quick and cannot exhaust memory. Every refusal is an
`ExpressionError` whose message says what is not allowed; nothing else escapes.
"""

from __future__ import annotations

import ast
import math

from judge.record import record

MAX_LENGTH = 500  # characters
MAX_DEPTH = 60  # nested operations; `1+1+...+1` is left-deep, so this bounds terms too
MAX_MAGNITUDE = 1e30  # any literal or intermediate value
MAX_EXPONENT = 64  # |b| in a ** b
MAX_ARGS = 8  # of min/max
FUNCTIONS = ("min", "max")

Number = int | float

_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
# What a refused construct is called in a message; any other node uses its class name.
_WORDS = {
    ast.Attribute: "attribute access (a.b)",
    ast.Subscript: "indexing (a[b])",
    ast.Compare: "a comparison",
    ast.BoolOp: "and/or",
    ast.IfExp: "if/else",
    ast.Lambda: "lambda",
    ast.Starred: "*unpacking",
    ast.List: "a list",
    ast.Tuple: "a tuple (a comma)",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.JoinedStr: "an f-string",
    ast.NamedExpr: "assignment (:=)",
    ast.BitXor: "^ (write powers as **)",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
    ast.Not: "not",
    ast.Invert: "~",
}


class ExpressionError(ValueError):
    """The text is not an allowed expression, or cannot be evaluated at some values."""


@record
class Expression:
    """A checked expression in `variables`; evaluate it at any values of them."""

    text: str
    variables: tuple[str, ...]
    tree: ast.expr

    def evaluate(self, values: dict[str, Number]) -> Number:
        """The value at `values` (one per variable); ExpressionError if it has none."""
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise ExpressionError(f"no value for {', '.join(missing)}")
        return _value(self.tree, values)


def parse_expression(text: object, variables: tuple[str, ...]) -> Expression:
    """Check `text` against the allowed grammar; raises ExpressionError naming the problem."""
    if type(text) is not str:
        raise ExpressionError("an expression is a string")
    text = text.strip()
    if not text:
        raise ExpressionError("the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is {len(text)} characters; at most {MAX_LENGTH}")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"not a valid expression: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):  # NUL bytes; nesting the parser refuses
        raise ExpressionError("not a valid expression") from None
    _check(tree, variables, 1)
    return Expression(text, tuple(variables), tree)


def _check(node: ast.AST, variables: tuple[str, ...], depth: int) -> None:
    """Refuse, with a message, anything outside the grammar; iterative over siblings."""
    if depth > MAX_DEPTH:
        raise ExpressionError(f"the expression is nested more than {MAX_DEPTH} deep")
    if isinstance(node, ast.Constant):
        _literal(node.value)
    elif isinstance(node, ast.Name):
        if node.id not in variables:
            raise ExpressionError(
                f"{node.id[:40]!r} is not a variable of this question "
                f"(variables: {', '.join(variables) or 'none'})"
            )
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise ExpressionError(f"{_word(node.op)} is not allowed")
        _check(node.left, variables, depth + 1)
        _check(node.right, variables, depth + 1)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.UAdd | ast.USub):
            raise ExpressionError(f"{_word(node.op)} is not allowed")
        _check(node.operand, variables, depth + 1)
    elif isinstance(node, ast.Call):
        _check_call(node, variables, depth)
    else:
        raise ExpressionError(
            f"{_word(node)} is not allowed: only numbers, the variables, "
            "+ - * / // % **, parentheses, min() and max()"
        )


def _check_call(node: ast.Call, variables: tuple[str, ...], depth: int) -> None:
    if not isinstance(node.func, ast.Name):
        raise ExpressionError(f"{_word(node.func)} is not allowed")
    if node.func.id not in FUNCTIONS:
        raise ExpressionError(f"calling {node.func.id[:40]!r} is not allowed; only min() and max()")
    if node.keywords or not 2 <= len(node.args) <= MAX_ARGS:
        raise ExpressionError(f"{node.func.id}() takes 2 to {MAX_ARGS} values, no keywords")
    for arg in node.args:
        _check(arg, variables, depth + 1)


def _literal(value: object) -> Number:
    if type(value) not in (int, float):
        raise ExpressionError(f"{type(value).__name__} literals are not allowed, only numbers")
    return _bounded(value)  # type: ignore[arg-type]


def _word(node: ast.AST) -> str:
    return _WORDS.get(type(node), type(node).__name__)


def _value(node: ast.expr, values: dict[str, Number]) -> Number:
    if isinstance(node, ast.Constant):
        return _literal(node.value)
    if isinstance(node, ast.Name):
        return _bounded(values[node.id])
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        args = [_value(a, values) for a in node.args]
        return min(args) if node.func.id == "min" else max(args)  # type: ignore[attr-defined]
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, values), _value(node.right, values)
        return _bounded(_binary(type(node.op), left, right))
    raise ExpressionError(f"{_word(node)} is not allowed")  # parse_expression refused it already


def _binary(op: type[ast.operator], a: Number, b: Number) -> Number:
    try:
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op is ast.Div:
            return a / b
        if op is ast.FloorDiv:
            return a // b
        if op is ast.Mod:
            return a % b
        return _power(a, b)
    except ZeroDivisionError:
        raise ExpressionError("division by zero") from None
    except OverflowError:
        raise ExpressionError(f"a value is larger than {MAX_MAGNITUDE:g}") from None


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_EXPONENT:
        raise ExpressionError(f"an exponent is larger than {MAX_EXPONENT}")
    # log10 |base ** exponent| = exponent * log10 |base|: refuse before computing it.
    if base != 0 and exponent * math.log10(abs(base)) > math.log10(MAX_MAGNITUDE):
        raise ExpressionError(f"a value is larger than {MAX_MAGNITUDE:g}")
    result = base**exponent
    if isinstance(result, complex):  # (-8) ** 0.5
        raise ExpressionError("a power has no real value")
    return result


def _bounded(value: Number) -> Number:
    """The value itself, if it is a finite number no larger than MAX_MAGNITUDE."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError("a value is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise ExpressionError(f"a value is larger than {MAX_MAGNITUDE:g}")
    return value
