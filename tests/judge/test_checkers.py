"""Checkers: what passes, what fails, and what the message reveals."""

from __future__ import annotations

import math
import random
import struct
import sys

import pytest

from judge.problem.checkers import CheckSpec, check
from judge.wire.tensor import TensorData

VALUE = CheckSpec("value", rel_tol=1e-6, abs_tol=0.0)
EXACT = CheckSpec("exact")
FLOAT = CheckSpec("float", rel_tol=1e-3, abs_tol=1e-9)


def f32(values: list[float], shape: tuple[int, ...] | None = None) -> TensorData:
    return TensorData("float32", shape or (len(values),), struct.pack(f"<{len(values)}f", *values))


def test_equal_ints_pass_and_unequal_fail_with_both_values_shown() -> None:
    assert check(3, 3, VALUE) is None
    mismatch = check(4, 3, VALUE)
    assert mismatch is not None
    assert "got 4, expected 3" in mismatch.describe(reveal=True)


def test_hidden_description_never_gives_the_expected_value_away() -> None:
    mismatch = check(123456, 654321, VALUE)
    assert mismatch is not None
    assert "654321" not in mismatch.describe(reveal=False)
    close = check(10.5, 10.0, FLOAT)  # "off by 0.5" would reveal 10.0 from the learner's 10.5
    assert close is not None and "0.5" not in close.describe(reveal=False)
    assert "off by 0.5" in close.describe(reveal=True)


def test_float_where_int_expected_is_wrong_even_if_equal() -> None:
    mismatch = check(114688.0, 114688, VALUE)
    assert mismatch is not None and "expected an int, got a float" in mismatch.reason


def test_bool_is_not_an_int() -> None:
    assert check(True, 1, VALUE) is not None
    assert check(1, True, EXACT) is not None


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_never_pass(bad: float) -> None:
    assert check(bad, 1.0, FLOAT) is not None
    assert check(bad, 1.0, VALUE) is not None
    assert check([bad], [1.0], VALUE) is not None


def test_nan_never_equals_nan_even_exactly() -> None:
    assert check(math.nan, math.nan, EXACT) is not None


def test_float_tolerance_is_relative_or_absolute_whichever_is_looser() -> None:
    assert check(1000.9, 1000.0, FLOAT) is None  # rel 1e-3 of 1000 = 1.0
    assert check(1001.5, 1000.0, FLOAT) is not None
    assert check(5e-10, 0.0, FLOAT) is None  # abs 1e-9
    assert check(2e-9, 0.0, FLOAT) is not None


def test_negative_zero_equals_zero_within_tolerance_but_not_exactly() -> None:
    assert check(-0.0, 0.0, VALUE) is None
    assert check(-0.0, 0.0, FLOAT) is None
    assert check(-0.0, 0.0, EXACT) is not None
    assert check(0.0, 0.0, EXACT) is None


def test_int_answer_accepted_where_float_expected() -> None:
    assert check(2, 2.0, VALUE) is None


def test_strings_and_none_compare_exactly() -> None:
    assert check("a", "a", VALUE) is None
    assert check("a", "b", VALUE) is not None
    assert check(None, 0, VALUE) is not None


def test_nested_mismatch_names_the_path() -> None:
    got = {"blocks": [1, 2, 3], "free": 5}
    expected = {"blocks": [1, 2, 4], "free": 5}
    mismatch = check(got, expected, VALUE)
    assert mismatch is not None
    assert mismatch.where == "['blocks'][2]"


def test_list_length_and_dict_keys_are_checked() -> None:
    short = check([1, 2], [1, 2, 3], VALUE)
    assert short is not None and short.describe(reveal=True).startswith(
        "wrong number of items (got 2) (expected 3)"
    )
    # Hidden cases: the length is the submission's choice and could carry an input out.
    assert short.describe(reveal=False) == "wrong number of items"
    assert "missing key 'b'" in str(check({"a": 1}, {"a": 1, "b": 2}, VALUE))
    assert "unexpected key 'c'" in str(check({"a": 1, "c": 3}, {"a": 1}, VALUE))


def test_trace_mismatch_names_the_step_and_its_operation() -> None:
    expected = [{"op": "alloc seq=1 n=4", "result": [0]}, {"op": "free seq=1", "result": None}]
    got = [{"op": "alloc seq=1 n=4", "result": [0]}, {"op": "free seq=1", "result": 7}]
    mismatch = check(got, expected, VALUE)
    assert mismatch is not None
    assert mismatch.step is not None and mismatch.step.en == "step 1 (free seq=1)"
    assert (
        mismatch.describe(reveal=False)
        == "step 1 (free seq=1) at [1]['result']: expected None, got an int"
    )


def test_wrong_type_at_top_level() -> None:
    assert "expected a list, got a dict" in str(check({}, [], VALUE))


def test_tensor_close_passes_and_reports_errors_when_not() -> None:
    spec = CheckSpec("tensor", rel_tol=1e-3, abs_tol=1e-5)
    assert check(f32([1.0, 2.0]), f32([1.0, 2.0001]), spec) is None
    mismatch = check(f32([1.0, 2.0, 3.5, 4.0], (2, 2)), f32([1.0, 2.0, 3.0, 4.0], (2, 2)), spec)
    assert mismatch is not None
    assert "first bad index [1, 0]" in mismatch.reason
    assert "max abs error 0.5" in mismatch.reason


def test_tensor_dtype_shape_and_finiteness_are_checked() -> None:
    spec = CheckSpec("tensor", rel_tol=1e-3, abs_tol=1e-5)
    f64 = TensorData("float64", (2,), struct.pack("<2d", 1.0, 2.0))
    assert "dtype float64, expected float32" in str(check(f64, f32([1.0, 2.0]), spec))
    assert "shape [1, 2], expected [2]" in str(
        check(f32([1.0, 2.0], (1, 2)), f32([1.0, 2.0]), spec)
    )
    assert "non-finite" in str(check(f32([1.0, math.nan]), f32([1.0, 2.0]), spec))
    assert "expected a tensor" in str(check([1.0, 2.0], f32([1.0, 2.0]), spec))


def test_integer_tensors_compare_exactly() -> None:
    a = TensorData("int64", (3,), struct.pack("<3q", 1, 2, 3))
    b = TensorData("int64", (3,), struct.pack("<3q", 1, 2, 4))
    assert check(a, a, CheckSpec("tensor")) is None
    assert "index [2]" in str(check(b, a, CheckSpec("tensor")))


def test_bfloat16_tensors_decode_and_compare() -> None:
    def bf16(values: list[float]) -> TensorData:
        raw = b"".join(
            struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in values
        )
        return TensorData("bfloat16", (len(values),), raw)

    assert bf16([1.0, -2.0]).values() == [1.0, -2.0]
    assert check(bf16([1.0, 2.0]), bf16([1.0, 2.0]), CheckSpec("tensor")) is None
    assert check(bf16([1.0, 3.0]), bf16([1.0, 2.0]), CheckSpec("tensor")) is not None


def test_vectorised_tensor_errors_match_the_pure_python_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The torch tier compares with torch when the parent already loaded it, the browser
    tier in pure Python: both give the same verdict and the same message (index, max
    errors), seen through the public check()."""
    torch = pytest.importorskip("torch")
    from judge.wire.tensor import from_torch

    spec = CheckSpec("tensor", rel_tol=1e-3, abs_tol=1e-4)
    gen = torch.Generator().manual_seed(0)
    expected = torch.randn(4, 33, generator=gen)
    cases = []
    for got in (
        expected + 1e-6,
        expected * 1.01,  # every element off: the max errors show in the message
        expected.clone().index_put_((torch.tensor([2]), torch.tensor([7])), torch.tensor(9.0)),
        expected.clone().fill_(float("nan")),
    ):
        for dtype in (torch.float32, torch.bfloat16):
            cases.append((from_torch(got.to(dtype)), from_torch(expected.to(dtype))))
    fast = [check(g, e, spec) for g, e in cases]
    monkeypatch.delitem(sys.modules, "torch")  # what the checker looks at to choose a path
    pure = [check(g, e, spec) for g, e in cases]
    assert fast == pure
    assert [m is None for m in pure] == [True, True] + [False] * 6, pure
    assert "first bad index [2, 7]" in pure[4].reason  # type: ignore[union-attr]
    assert "non-finite value nan at index [0, 0]" in pure[6].reason  # type: ignore[union-attr]


def test_the_quick_closeness_check_never_passes_what_the_element_errors_fail() -> None:
    """The torch tier first asks torch.isclose whether every element is close, and reads the
    element errors only when it is not: so isclose may say no where the errors would pass
    (an expected infinity or NaN accepts any value there), never yes where they would not.
    Values on and around the tolerance's edges, infinities, NaN, both zeros, every float
    dtype, three tolerances (a seeded draw: the same pairs every run)."""
    torch = pytest.importorskip("torch")
    from judge.problem.checkers import _all_close_torch, _as_float64, _float_errors
    from judge.wire.tensor import from_torch

    edges = [0.0, -0.0, 1.0, -1.0, 1e-5, 2e-5, 1.00001, 1.0001, 1.00011, 0.9999, 1e-30]
    edges += [3.4e38, -3.4e38, math.inf, -math.inf, math.nan]
    specs = [
        CheckSpec("tensor", rel_tol=1e-4, abs_tol=1e-5),
        CheckSpec("tensor", rel_tol=0.0, abs_tol=0.0),
        CheckSpec("tensor", rel_tol=1e-3, abs_tol=1e-5),
    ]
    rng = random.Random(5)
    decided_by_errors = 0
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        for _ in range(400):
            n = rng.randint(0, 4)
            got = from_torch(torch.tensor([rng.choice(edges) for _ in range(n)], dtype=dtype))
            expected = from_torch(torch.tensor([rng.choice(edges) for _ in range(n)], dtype=dtype))
            for spec in specs:
                first_bad, _, _, non_finite = _float_errors(got, expected, spec)
                passes = first_bad < 0 and non_finite < 0
                g, e = _as_float64(torch, got), _as_float64(torch, expected)
                quick = _all_close_torch(torch, g, e, spec)
                assert passes or not quick, (got, expected, spec)
                decided_by_errors += passes and not quick
    assert decided_by_errors > 0  # the draw reaches the pairs only the errors pass


def test_unchecked_keys_are_carried_but_never_compared() -> None:
    spec = CheckSpec("exact", unchecked=("timeline",))
    assert (
        check({"tokens": [1], "timeline": "PD"}, {"tokens": [1], "timeline": "PPD"}, spec) is None
    )
    missing = check({"tokens": [1]}, {"tokens": [1], "timeline": "PPD"}, spec)
    assert missing is None  # a report without the picture's data still passes
    wrong = check({"tokens": [2], "timeline": "PD"}, {"tokens": [1], "timeline": "PD"}, spec)
    assert wrong is not None and "tokens" in wrong.where


def test_unchecked_keys_survive_the_trip_to_a_job_and_the_device_choice() -> None:
    from judge.problem.spec import parse_check

    spec = parse_check({"kind": "exact", "unchecked": ["timeline"]}, "p.toml", "checker")
    assert spec.unchecked == ("timeline",)
    assert parse_check(spec.to_dict(), "p.toml", "checker") == spec
    assert spec.on("cuda").unchecked == ("timeline",)


@pytest.mark.parametrize("bad", ["timeline", [1], [""], ["a", "a"]])
def test_a_malformed_unchecked_list_is_refused_naming_the_field(bad: object) -> None:
    from judge.errors import SpecError
    from judge.problem.spec import parse_check

    with pytest.raises(SpecError, match=r"checker\.unchecked"):
        parse_check({"kind": "exact", "unchecked": bad}, "p.toml", "checker")
