"""Checkers compare a submission's observation with the reference's.

Every checker is a plain function `(got, expected, spec) -> Mismatch | None`. They run
on the trusted side only. A mismatch says *where* (a path such as `[17]['result']`,
with the step's "op" label when the observation is a trace) and *how*; the report
decides whether the got/expected values may be shown (public cases) or not (hidden).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from types import ModuleType

from judge.errors import BadReference
from judge.messages import Message, say
from judge.record import record
from judge.textcap import bounded
from judge.wire.tensor import FLOAT_DTYPES, TensorData

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

# A value is shown whole up to this many characters: a trace step's state is a few hundred,
# and only a returned value (the submission's choice) is ever longer.
MAX_SHOWN = 8000


@record
class Tolerance:
    """A relative and an absolute tolerance: a CUDA job's (problem.toml [checker.cuda])."""

    rel_tol: float
    abs_tol: float

    def to_dict(self) -> dict[str, float]:
        return {"rel_tol": self.rel_tol, "abs_tol": self.abs_tol}


@record
class CheckSpec:
    """Which checker and its tolerances.

    Numbers pass iff |got - expected| <= max(rel_tol * |expected|, abs_tol); tensor
    elements pass iff |got - expected| <= abs_tol + rel_tol * |expected| (torch.allclose).
    rel_tol and abs_tol are a CPU job's; `cuda` is a CUDA job's where the problem states
    one (its references are computed on the CPU, so a GPU's other order of summation is
    part of the difference), else the CPU's serve both. `unchecked` names keys of a dict
    observation that are carried to the report (a picture's data, such as a serving
    engine's timeline) but never compared: they may differ between two correct answers."""

    kind: str = "value"
    rel_tol: float = 1e-9
    abs_tol: float = 0.0
    cuda: Tolerance | None = None
    unchecked: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": self.kind,
            "rel_tol": self.rel_tol,
            "abs_tol": self.abs_tol,
        }
        if self.cuda is not None:
            data["cuda"] = self.cuda.to_dict()
        if self.unchecked:
            data["unchecked"] = list(self.unchecked)
        return data

    def on(self, device: str) -> CheckSpec:
        """The spec a job on `device` ("cpu" or "cuda") is checked with: one tolerance."""
        if device != "cuda" or self.cuda is None:
            if self.cuda is None:
                return self
            return CheckSpec(self.kind, self.rel_tol, self.abs_tol, unchecked=self.unchecked)
        return CheckSpec(self.kind, self.cuda.rel_tol, self.cuda.abs_tol, unchecked=self.unchecked)

    def compared(self, observation: object) -> object:
        """The part of an observation the checker compares: a dict without its unchecked keys."""
        if not self.unchecked or type(observation) is not dict:
            return observation
        return {k: v for k, v in observation.items() if k not in self.unchecked}


@record
class Mismatch:
    where: str  # path into the observation; "" for the whole value
    why: Message  # safe to show for hidden cases: says how, never the expected value
    got: str | None = None  # shown for public cases only
    expected: str | None = None
    step: Message | None = None  # "step 17 (alloc seq=3 n=5)" for traces
    detail: Message | None = None  # more about how, that would give the expected value away
    # The reason for hidden cases when `why` quotes something the submission chose (a
    # length, a key, an index, an error size): a submission could put a hidden input there.
    hidden_why: Message | None = None
    step_index: int | None = None  # the 17 of `step`: which step of the trace differs first
    # `where` as keys and indexes, so the whole value around the difference can be shown
    # with the difference marked (judge/pictures/value_diff.py).
    path: tuple[str | int, ...] = ()

    @property
    def reason(self) -> str:
        return self.why.en

    def __str__(self) -> str:  # the whole public description, in English
        return self.describe(reveal=True)

    def describe(self, reveal: bool, with_values: bool = True) -> str:
        """One line for people, in English; see `message`."""
        return self.message(reveal, with_values).en

    def message(self, reveal: bool, with_values: bool = True) -> Message:
        """Where and how, as a message; details and values only when `reveal` (public cases)."""
        reason = self.why if reveal or self.hidden_why is None else self.hidden_why
        text = reason
        if self.step is not None and self.where:
            text = say("check.step_where_reason", step=self.step, where=self.where, reason=reason)
        elif self.step is not None:
            text = say("check.step_reason", step=self.step, reason=reason)
        elif self.where:
            text = say("check.where_reason", where=self.where, reason=reason)
        if reveal and self.detail is not None:
            text = say("check.with_detail", text=text, detail=self.detail)
        if reveal and with_values and self.got is not None:
            text = say("check.with_values", text=text, got=self.got, expected=str(self.expected))
        return text


def show(value: object) -> str:
    """A repr for messages, whole unless it is longer than MAX_SHOWN (then it says how much
    was cut)."""
    if type(value) is int and value.bit_length() > 1000:  # repr() refuses past 4300 digits
        return f"an int of {value.bit_length()} bits"
    try:
        text = value.describe() if isinstance(value, TensorData) else repr(value)
    except (ValueError, RecursionError):  # an int too long to print, deep nesting
        return f"{_kind_name(value).en} too large to show"
    return bounded(text, MAX_SHOWN)


_KIND_NAMES = {
    type(None): "None",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    list: "list",
    dict: "dict",
}


def _kind_name(value: object) -> Message:
    """ "an int", "a float", "a tensor": for messages."""
    if isinstance(value, TensorData):
        return say("kind.tensor")
    name = _KIND_NAMES.get(type(value), type(value).__name__)
    if name == "None":
        return say("kind.none")
    return say("kind.an" if name[0] in "aeiou" else "kind.a", name=name)


def check(got: object, expected: object, spec: CheckSpec) -> Mismatch | None:
    """Compare with the checker named by `spec.kind`."""
    got, expected = spec.compared(got), spec.compared(expected)
    if spec.kind != "tensor" and _same_json(got, expected):
        return None  # identical data passes every checker; the walk below explains differences
    return _CHECKERS[spec.kind](got, expected, spec)


def _same_json(got: object, expected: object) -> bool:
    """A fast path for long traces: JSON text keeps 1, 1.0 and true apart and refuses NaN."""
    try:
        return json.dumps(got, allow_nan=False) == json.dumps(expected, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False


def check_exact(got: object, expected: object, spec: CheckSpec) -> Mismatch | None:
    """Identical structure, types and values; floats by their exact bits (-0.0 != 0.0)."""
    return _walk(got, expected, spec, (), exact=True)


def check_value(got: object, expected: object, spec: CheckSpec) -> Mismatch | None:
    """Nested lists and dicts; ints, strs and bools exact; floats within tolerance."""
    return _walk(got, expected, spec, (), exact=False)


def check_float(got: object, expected: object, spec: CheckSpec) -> Mismatch | None:
    """One number within tolerance; NaN and infinities never pass."""
    return _compare_number(got, expected, spec, ())


def check_tensor(got: object, expected: object, spec: CheckSpec) -> Mismatch | None:
    """Same dtype and shape, finite where expected is finite, allclose within tolerance."""
    if not isinstance(expected, TensorData):
        raise BadReference("tensor checker needs a tensor as the expected observation")
    return _compare_tensor(got, expected, spec, ())


_Path = tuple[str | int, ...]


def _mismatch(
    path: _Path,
    why: Message,
    got: str | None = None,
    expected: str | None = None,
    *,
    detail: Message | None = None,
    hidden_why: Message | None = None,
) -> Mismatch:
    return Mismatch(_at(path), why, got, expected, detail=detail, hidden_why=hidden_why, path=path)


def _at(path: _Path) -> str:
    """A path in Python's notation, `[17]['result']`; "" for the whole value."""
    return "".join(f"[{key!r}]" for key in path)


def _walk(
    got: object, expected: object, spec: CheckSpec, where: _Path, exact: bool
) -> Mismatch | None:
    if isinstance(expected, TensorData):
        return _compare_tensor(got, expected, spec, where)
    if type(expected) is float and not exact:
        return _compare_number(got, expected, spec, where)
    if type(got) is not type(expected):
        return _mismatch(
            where,
            say("check.kind", expected=_kind_name(expected), got=_kind_name(got)),
            show(got),
            show(expected),
        )
    if type(expected) is list:
        return _walk_list(got, expected, spec, where, exact)  # type: ignore[arg-type]
    if type(expected) is dict:
        return _walk_dict(got, expected, spec, where, exact)  # type: ignore[arg-type]
    if isinstance(got, float) and isinstance(expected, float):  # exact: same bits; NaN never equals
        same = (
            not math.isnan(got)
            and got == expected
            and math.copysign(1, got) == math.copysign(1, expected)
        )
        return None if same else _mismatch(where, _DIFFER, show(got), show(expected))
    return None if got == expected else _mismatch(where, _DIFFER, show(got), show(expected))


_DIFFER = say("check.values_differ")


def _walk_list(
    got: list[object], expected: list[object], spec: CheckSpec, where: _Path, exact: bool
) -> Mismatch | None:
    for i, (g, e) in enumerate(zip(got, expected, strict=False)):
        found = _walk(g, e, spec, (*where, i), exact)
        if found is not None:
            return found if found.step else _label_step(found, i, e)
    if len(got) != len(expected):
        return _mismatch(
            where,
            say("check.item_count", got=len(got)),
            show(got),
            show(expected),
            detail=say("check.expected_count", expected=len(expected)),
            hidden_why=say("check.item_count_hidden"),
        )
    return None


def _label_step(found: Mismatch, index: int, expected_item: object) -> Mismatch:
    if type(expected_item) is dict and type(expected_item.get("op")) is str:
        step = say("check.step", index=index, op=expected_item["op"])
        return Mismatch(
            found.where, found.why, found.got, found.expected, step, found.detail,
            found.hidden_why, index, found.path,
        )  # fmt: skip
    return found


def _walk_dict(
    got: dict[str, object], expected: dict[str, object], spec: CheckSpec, where: _Path, exact: bool
) -> Mismatch | None:
    missing = [k for k in expected if k not in got]
    if missing:
        return _mismatch(where, say("check.missing_key", key=repr(missing[0])))
    extra = [k for k in got if k not in expected]
    if extra:
        return _mismatch(
            where,
            say("check.unexpected_key", key=show(extra[0])),
            hidden_why=say("check.unexpected_key_hidden"),
        )
    for key, e in expected.items():
        found = _walk(got[key], e, spec, (*where, key), exact)
        if found is not None:
            return found
    return None


def _compare_number(
    got: object, expected: object, spec: CheckSpec, where: _Path
) -> Mismatch | None:
    if type(got) not in (int, float):
        return _mismatch(
            where, say("check.not_number", got=_kind_name(got)), show(got), show(expected)
        )
    e = float(expected)  # type: ignore[arg-type]
    if not math.isfinite(e):
        raise BadReference(f"reference produced a non-finite number at {_at(where) or 'top'}")
    try:
        g = float(got)  # type: ignore[arg-type]
    except OverflowError:  # an int such as 10**400: no float is that large
        return _mismatch(where, say("check.too_large"), show(got), show(expected))
    if not math.isfinite(g):
        why = say("check.non_finite_number", value=str(g))
        return _mismatch(where, why, show(got), show(expected))
    if abs(g - e) <= max(spec.rel_tol * abs(e), spec.abs_tol):
        return None
    return _mismatch(
        where,
        say("check.tolerance", rel=f"{spec.rel_tol:g}", abs=f"{spec.abs_tol:g}"),
        show(got),
        show(expected),
        detail=say("check.off_by", diff=f"{abs(g - e):.6g}"),
    )


def _compare_tensor(
    got: object, expected: TensorData, spec: CheckSpec, where: _Path
) -> Mismatch | None:
    if not isinstance(got, TensorData):
        return _mismatch(
            where, say("check.not_tensor", got=_kind_name(got)), show(got), show(expected)
        )
    if got.dtype != expected.dtype:
        return _mismatch(
            where,
            say("check.dtype", got=got.dtype, expected=expected.dtype),
            got.describe(),
            expected.describe(),
        )
    if got.shape != expected.shape:
        return _mismatch(
            where,
            say("check.shape", got=str(list(got.shape)), expected=str(list(expected.shape))),
            got.describe(),
            expected.describe(),
            hidden_why=say("check.shape_hidden"),  # the expected shape follows from hidden inputs
        )
    if expected.dtype not in FLOAT_DTYPES:
        return _first_unequal(got, expected, where)
    return _close_floats(got, expected, spec, where)


def _first_unequal(got: TensorData, expected: TensorData, where: _Path) -> Mismatch | None:
    if got.data == expected.data:
        return None
    for i, (g, e) in enumerate(zip(got.values(), expected.values(), strict=True)):
        if g != e:
            return _mismatch(
                where,
                say("check.first_difference", index=str(list(got.index(i)))),
                show(g),
                show(e),
                hidden_why=_DIFFER,
            )
    return None


def _close_floats(
    got: TensorData, expected: TensorData, spec: CheckSpec, where: _Path
) -> Mismatch | None:
    torch = sys.modules.get("torch")  # the torch tier has it loaded already; never import it
    if torch:
        g, e = _as_float64(torch, got), _as_float64(torch, expected)
        if _all_close_torch(torch, g, e, spec):
            return None
        stats = _float_errors_torch(torch, g, e, spec)
    else:
        stats = _float_errors(got, expected, spec)
    first_bad, max_abs, max_rel, non_finite = stats
    if non_finite >= 0:
        bad = got.values()[non_finite]
        return _mismatch(
            where,
            say("check.non_finite_at", value=str(bad), index=str(list(got.index(non_finite)))),
            hidden_why=say("check.non_finite_hidden"),
        )
    if first_bad < 0:
        return None
    idx = list(got.index(first_bad))
    tol = {"rtol": f"{spec.rel_tol:g}", "atol": f"{spec.abs_tol:g}"}
    reason = say(
        "check.not_close", max_abs=f"{max_abs:.3g}", max_rel=f"{max_rel:.3g}", index=str(idx), **tol
    )
    g_vals, e_vals = got.values(), expected.values()
    hidden = say("check.not_close_hidden", **tol)
    return _mismatch(
        where, reason, show(g_vals[first_bad]), show(e_vals[first_bad]), hidden_why=hidden
    )


_Errors = tuple[int, float, float, int]  # first bad index, max abs, max rel, first non-finite


def _float_errors(got: TensorData, expected: TensorData, spec: CheckSpec) -> _Errors:
    """Element by element, in pure Python (the browser tier and tests without torch)."""
    first_bad, max_abs, max_rel = -1, 0.0, 0.0
    for i, (g, e) in enumerate(zip(got.values(), expected.values(), strict=True)):
        if not math.isfinite(g) and math.isfinite(e):
            return first_bad, max_abs, max_rel, i
        err = abs(g - e) if math.isfinite(e) else (0.0 if g == e else math.inf)
        max_abs = max(max_abs, err)
        if e:
            max_rel = max(max_rel, err / abs(e))
        if first_bad < 0 and err > spec.abs_tol + spec.rel_tol * abs(e):
            first_bad = i
    return first_bad, max_abs, max_rel, -1


def _all_close_torch(torch: ModuleType, g: Any, e: Any, spec: CheckSpec) -> bool:
    """For the answer and the expected values as float64 tensors (_as_float64): true only
    where _float_errors would find nothing wrong: every element within
    |g - e| <= atol + rtol * |e| in float64, or the same infinity as expected. One
    comparison, where the errors take some twenty tensor operations and are needed only for
    a failure's message: in a burst of attention-decode submissions they were a quarter of
    the runner's own busy time. False sends the pair to the errors, which decide it (they
    also accept what this does not look at: any value where the expected one is not
    finite)."""
    return bool(torch.isclose(g, e, spec.rel_tol, spec.abs_tol).all())


def _float_errors_torch(torch: ModuleType, g: Any, e: Any, spec: CheckSpec) -> _Errors:
    """The same numbers as _float_errors, vectorised (tensors of a million elements are
    common), for the answer and the expected values as float64 tensors (_as_float64)."""
    finite_e = torch.isfinite(e)
    non_finite = (~torch.isfinite(g) & finite_e).nonzero()
    if len(non_finite):
        return -1, 0.0, 0.0, int(non_finite[0])
    inf = torch.tensor(math.inf, dtype=torch.float64)
    err = torch.where(finite_e, (g - e).abs(), torch.where(g == e, torch.zeros_like(g), inf))
    rel = torch.where(e != 0, err / e.abs(), torch.zeros_like(err))
    bad = (err > spec.abs_tol + spec.rel_tol * e.abs()).nonzero()
    max_abs = float(err.max()) if err.numel() else 0.0
    max_rel = float(rel.max()) if rel.numel() else 0.0
    return (int(bad[0]) if len(bad) else -1), max_abs, max_rel, -1


def _as_float64(torch: ModuleType, t: TensorData) -> Any:
    if not t.data:
        return torch.zeros(0, dtype=torch.float64)
    dtype = getattr(torch, t.dtype)
    return torch.frombuffer(bytearray(t.data), dtype=dtype).to(torch.float64)


_CHECKERS: dict[str, Callable[[object, object, CheckSpec], Mismatch | None]] = {
    "exact": check_exact,
    "value": check_value,
    "float": check_float,
    "tensor": check_tensor,
}
# The kinds problem.toml may name: the table above is the one list, so a kind cannot be
# accepted by the spec and unknown to `check`, or the reverse.
CHECKER_KINDS = tuple(_CHECKERS)
