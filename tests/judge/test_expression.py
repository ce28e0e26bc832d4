"""A learner's formula is data: parsed and evaluated without eval, bounded in every way."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.quiz.expression import MAX_DEPTH, MAX_LENGTH, ExpressionError, parse_expression

NP = ("n", "p")
PROPERTY = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,  # the same examples every run: a property test must not flake
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("n * p + n * (n - 1) / 2", 1000 * 100 + 1000 * 999 / 2),
        ("n*p + n*(n-1)//2", 599500),
        ("p + n - 1", 1099),
        ("-n + +p", -900),
        ("n ** 2 % 7", 1000**2 % 7),
        ("2 ** -1 * n", 500.0),
        ("min(n, p, 3) + max(n, p)", 1003),
        ("  1.5e3  ", 1500.0),
    ],
)
def test_allowed_expressions_evaluate_as_python_would(text: str, value: float) -> None:
    assert parse_expression(text, NP).evaluate({"n": 1000, "p": 100}) == value


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("__import__('os')", "calling '__import__' is not allowed"),
        ("__import__('os').system('id')", "attribute access"),
        ("(lambda: 1)()", "lambda"),
        ("().__class__.__bases__", "attribute access"),
        ("(n, p)", "a tuple"),
        ("n.real", "attribute access"),
        ("[n][0]", "indexing"),
        ("lambda: 1", "lambda"),
        ("n if p else 1", "if/else"),
        ("n < p", "a comparison"),
        ("n and p", "and/or"),
        ("n ^ 2", "write powers as **"),
        ("x + 1", "'x' is not a variable of this question (variables: n, p)"),
        ("open('/etc/passwd')", "calling 'open' is not allowed"),
        ("min(n)", "min() takes 2 to 8 values"),
        ("max(n, p, key=abs)", "no keywords"),
        ("'text'", "str literals are not allowed"),
        ("True + 1", "bool literals are not allowed"),
        ("1j", "complex literals are not allowed"),
        ("(n := 3)", "assignment"),
        ("f'{n}'", "an f-string"),
        ("2n", "not a valid expression"),
        ("", "the expression is empty"),
        ("n\x00", "not a valid expression"),
        ("x" * (MAX_LENGTH + 1), f"at most {MAX_LENGTH}"),
        ("(" * 240 + "n" + ")" * 240, "not a valid expression"),
        ("-" * 200 + "n", f"nested more than {MAX_DEPTH} deep"),
        ("+".join(["1"] * 200), f"nested more than {MAX_DEPTH} deep"),
        ("1" * 40, "larger than"),
        ("1e999", "not a finite number"),
    ],
)
def test_anything_else_is_refused_with_a_message_naming_it(text: str, says: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression(text, NP).evaluate({"n": 1, "p": 1})
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2 ** 10000", "an exponent is larger than 64"),
        ("9 ** 9 ** 9", "an exponent is larger than 64"),
        ("10 ** 64", "larger than 1e+30"),
        ("n ** 64 * n ** 64", "larger than 1e+30"),
        ("1e20 * 1e20", "larger than 1e+30"),
        ("0.5 ** -2000", "an exponent is larger"),
        ("1e-20 ** -2", "larger than"),
        ("n / (p - 1)", "division by zero"),
        ("n // 0", "division by zero"),
        ("n % 0.0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("(-8) ** 0.5", "no real value"),
    ],
)
def test_values_are_bounded_at_evaluation(text: str, says: str) -> None:
    expression = parse_expression(text, NP)  # the grammar allows it...
    with pytest.raises(ExpressionError) as caught:
        expression.evaluate({"n": 10**12, "p": 1})  # ...the value is refused
    assert says in str(caught.value)


def test_a_missing_value_is_an_expression_error() -> None:
    with pytest.raises(ExpressionError, match="no value for p"):
        parse_expression("n + p", NP).evaluate({"n": 1})


@PROPERTY
@given(st.text(max_size=120))
def test_no_text_raises_anything_but_an_expression_error(text: str) -> None:
    try:
        parse_expression(text, NP).evaluate({"n": 3, "p": 0})
    except ExpressionError:
        pass


# Near-misses: pieces of allowed expressions mixed with pieces of hostile ones.
TOKEN_TEXT = "n p 0 1 2 7 0.5 1e308 64 + - * / // % ** ( ) min( max( , __import__ . [ ] lambda"
TOKENS = st.sampled_from([*TOKEN_TEXT.split(" "), " "])


@PROPERTY
@given(st.lists(TOKENS, max_size=60), st.integers(-(10**6), 10**6), st.integers(-5, 5))
def test_no_token_soup_raises_anything_but_an_expression_error(
    tokens: list[str], n: int, p: int
) -> None:
    """Near-miss expressions reach the evaluator far more often than random text does."""
    try:
        value = parse_expression("".join(tokens), NP).evaluate({"n": n, "p": p})
    except ExpressionError:
        return
    assert type(value) in (int, float) and abs(value) <= 1e30


def arithmetic(depth: int = 4) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(["n", "p", "1", "2", "3", "10"])
    return st.recursive(
        leaf,
        lambda inner: st.builds(
            lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["+", "-", "*"]), inner
        ),
        max_leaves=2**depth,
    )


@PROPERTY
@given(arithmetic(), st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_integer_arithmetic_agrees_with_python(text: str, n: int, p: int) -> None:
    expected = eval(text, {"__builtins__": {}}, {"n": n, "p": p})  # the oracle
    if abs(expected) > 1e30:
        return
    assert parse_expression(text, NP).evaluate({"n": n, "p": p}) == expected
