"""Property tests: every checker kind gives a verdict for any observation, never an exception.

An observation is whatever a submission managed to send: any JSON shape and size, ints of
any length, non-finite floats, tensors of any dtype and shape. The expected side is what a
reference produces for that checker. Pins issue 10, section 4 (an int of 400 digits raised
OverflowError out of the float checker; the web then stored IE after three retries).
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.grading.case_grading import grade
from judge.grading.outcome import Outcome, OutcomeKind
from judge.problem.cases import Case
from judge.problem.checkers import CHECKER_KINDS, MAX_SHOWN, CheckSpec, check, show
from judge.textcap import cut_note
from judge.verdict import Verdict
from judge.wire.tensor import DTYPES, TensorData

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples every run: a property test must not flake
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=10**300, max_value=10**1200),  # too large for a float
    st.integers(max_value=-(10**300)),
    st.floats(allow_nan=True, allow_infinity=True),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=50))


@st.composite
def tensors(draw: st.DrawFn) -> TensorData:
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    size = DTYPES[dtype][0] * math.prod(shape)
    return TensorData(dtype, shape, draw(st.binary(min_size=size, max_size=size)))


observations = st.recursive(
    st.one_of(scalars, tensors()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
reference_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), finite_floats, st.text(max_size=20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)
float_tensors = st.builds(
    lambda values: TensorData(
        "float32", (len(values),), b"".join(__import__("struct").pack("<f", v) for v in values)
    ),
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=8),
)


def _expected_for(kind: str) -> st.SearchStrategy[object]:
    if kind == "float":
        return finite_floats
    if kind == "tensor":
        return float_tensors
    return reference_values


@st.composite
def checker_inputs(draw: st.DrawFn) -> tuple[str, object, object, CheckSpec]:
    kind = draw(st.sampled_from(CHECKER_KINDS))
    spec = CheckSpec(kind, rel_tol=draw(st.sampled_from([0.0, 1e-9, 1e-3])), abs_tol=1e-6)
    return kind, draw(observations), draw(_expected_for(kind)), spec


@PROPERTY
@given(checker_inputs())
def test_every_checker_returns_a_mismatch_or_none_for_any_observation(data) -> None:
    _kind, got, expected, spec = data
    mismatch = check(got, expected, spec)
    if mismatch is not None:
        assert mismatch.describe(reveal=True) and mismatch.describe(reveal=False)


@PROPERTY
@given(checker_inputs(), st.booleans())
def test_grading_any_observation_gives_ac_or_wa_with_a_message(data, public: bool) -> None:
    _kind, got, expected, spec = data
    case = Case("c", {}, spec, public)
    result = grade(case, Outcome(OutcomeKind.RESULT, 1.0, observation=got), expected)
    assert result.verdict in (Verdict.AC, Verdict.WA)
    if result.verdict is Verdict.WA:
        assert result.message
    if not public:
        assert result.got is None and result.expected is None


@PROPERTY
@given(observations)
def test_show_is_bounded_for_any_value(value) -> None:
    assert len(show(value)) <= MAX_SHOWN + len(cut_note(10**12))


def test_show_says_how_much_of_a_long_value_it_cut() -> None:
    """Values were cut at 300 characters with a bare "...": a trace step's state lost its
    end, and nothing said how much was missing."""
    value = list(range(3000))
    text = show(value)
    assert text.startswith(repr(value)[:MAX_SHOWN])
    assert f"{len(repr(value)) - MAX_SHOWN:,} more characters not shown" in text
    state = {"free_blocks": list(range(24)), "ref_counts": [1] * 24, "block_table": [3, 4, 5]}
    assert show(state) == repr(state)  # a stateful problem's state is shown whole


def test_an_int_of_thousands_of_digits_is_shown_by_its_size() -> None:
    assert show(10**5000) == f"an int of {(10**5000).bit_length()} bits"


@PROPERTY
@given(st.sampled_from(["value", "float", "exact"]), st.one_of(numbers, scalars), finite_floats)
def test_any_number_where_a_float_is_expected_is_ac_or_wa(kind: str, got, expected) -> None:
    case = Case("c", {}, CheckSpec(kind, rel_tol=1e-9, abs_tol=0.0), public=True)
    result = grade(case, Outcome(OutcomeKind.RESULT, 1.0, observation=got), expected)
    assert result.verdict in (Verdict.AC, Verdict.WA)
