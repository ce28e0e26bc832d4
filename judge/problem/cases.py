"""Cases: what a problem's cases.py produces, validated on the trusted side."""

from __future__ import annotations

import json
import random
import re
import types

from judge.errors import SpecError
from judge.problem.checkers import CheckSpec
from judge.problem.spec import ProblemSpec, parse_check
from judge.record import record, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.problem.speed_spec import Timed

PUBLIC_SEED = (
    20261129  # Run in the browser and `judge run` use this; the server keeps its own secret
)
CASE_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")
# A generated case's name starts with the kind of seed that drew it: `random-00` drawn from
# the public seed (Run, `judge run`) and `random-00` drawn from a submission's secret seed
# are different cases, and a learner told one passed and the other failed must see two
# names. Reports stored before the prefix keep their old names; nothing reads them back by
# name.
PUBLIC_PREFIX, HIDDEN_PREFIX = "public-", "hidden-"
MAX_ARGS_BYTES = 8 << 20


@record
class Case:
    name: str
    args: object  # JSON data handed to cases.run(sub, args)
    check: CheckSpec
    public: bool  # public cases may show got/expected; hidden ones never do
    # Its CPU time may be at most the problem's CpuRule applied to the reference's, on this case.
    calibrated: bool = False
    timed: Timed | None = None  # a speed problem's repetition: scored (judge/problem/speed_spec.py)
    # A speed problem's warm-up: run only to be timed after it, so left out (like the timed
    # repetitions) once a case has failed and the run can get no score.
    warm_up: bool = False

    def to_request(self) -> dict[str, object]:
        return {"type": "case", "name": self.name, "args": self.args}


def load_module(source: str, name: str, filename: str) -> types.ModuleType:
    """Execute trusted source (cases.py, reference.py) as a fresh module."""
    module = types.ModuleType(name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    _one_torch_thread()
    return module


def _one_torch_thread() -> None:
    """The trusted side runs torch's kernels on one thread, as every judged child does:
    the reference then computes exactly what a child computes (same kernels, same order of
    sums, so no near-tie flips a greedy token), and a busy machine does not make two
    threads spin against each other (tens of times slower)."""
    import sys

    torch = sys.modules.get("torch")  # loaded by the source just run; never imported here
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def build_cases(problem: ProblemSpec, seed: int | None) -> list[Case]:
    """Public cases, then the generated ones for `seed` (the public seed when None).

    Generated cases are public only when drawn from the public seed."""
    file = f"{problem.slug}/cases.py"
    module = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
    for fn in ("public_cases", "generated_cases", "run"):
        if not callable(getattr(module, fn, None)):
            raise SpecError(file, fn, "must be defined as a function")
    hidden = seed is not None and seed != PUBLIC_SEED
    rng = random.Random(PUBLIC_SEED if seed is None else seed)
    given = [
        _case(c, True, problem, file) for c in _as_list(module.public_cases(), file, "public_cases")
    ]
    generated = [
        _case(c, not hidden, problem, file)
        for c in _as_list(module.generated_cases(rng), file, "generated_cases")
    ]
    prefix = HIDDEN_PREFIX if hidden else PUBLIC_PREFIX
    cases = given + [replace(c, name=_prefixed(prefix, c.name)) for c in generated]
    _check_unique(cases, file)
    return cases


def _prefixed(prefix: str, name: str) -> str:
    """`name` starting with `prefix`, once (a generated case its author already called
    `hidden-long` stays that on a secret seed)."""
    return name if name.startswith(prefix) else prefix + name


def public_cases(problem: ProblemSpec, driver: types.ModuleType | None = None) -> list[Case]:
    """The public cases alone, the generated ones never drawn (a torch problem's draw may
    run a model): what a learner's own input is shaped after (judge/problem/custom_input.py)."""
    file = f"{problem.slug}/cases.py"
    if driver is None:
        driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
    if not callable(getattr(driver, "public_cases", None)):
        raise SpecError(file, "public_cases", "must be defined as a function")
    raw = _as_list(driver.public_cases(), file, "public_cases")
    return [_case(item, True, problem, file) for item in raw]


def _as_list(value: object, file: str, fn: str) -> list[object]:
    if type(value) is not list:
        raise SpecError(file, fn, f"must return a list of case dicts, got {type(value).__name__}")
    return value


def _case(item: object, public: bool, problem: ProblemSpec, file: str) -> Case:
    if type(item) is not dict or "name" not in item or "args" not in item:
        raise SpecError(
            file, "cases", f"each case must be a dict with 'name' and 'args', got {item!r:.80}"
        )
    unknown = set(item) - {"name", "args", "check", "calibrated", "timed", "warm_up"}
    if unknown:
        raise SpecError(
            file, "cases", f"case {item['name']!r} has unknown key {sorted(unknown)[0]!r}"
        )
    name = item["name"]
    if type(name) is not str or not CASE_NAME_RE.match(name):
        raise SpecError(file, "cases", f"case name {name!r} must match {CASE_NAME_RE.pattern}")
    try:
        size = len(json.dumps(item["args"], allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise SpecError(file, "cases", f"case {name!r}: args must be JSON data ({exc})") from None
    if size > MAX_ARGS_BYTES:
        raise SpecError(
            file, "cases", f"case {name!r}: args are {size} bytes; at most {MAX_ARGS_BYTES}"
        )
    default = problem.checker
    check = default
    if "check" in item:
        merged = (
            _merged_check(default.to_dict(), item["check"])
            if type(item["check"]) is dict
            else item["check"]
        )
        if type(merged) is not dict:
            raise SpecError(file, "cases", f"case {name!r}: check must be a dict")
        check = parse_check(merged, file, f"case {name}.check")
    calibrated = item.get("calibrated", False)
    if type(calibrated) is not bool:
        raise SpecError(file, "cases", f"case {name!r}: calibrated must be true or false")
    if calibrated and problem.cpu_rule is None:
        raise SpecError(
            file, "cases", f"case {name!r} is calibrated but problem.toml sets no cpu_vs_reference"
        )
    timed = None
    if "timed" in item:
        if problem.speed is None:
            raise SpecError(file, "cases", f"case {name!r} is timed; problem.toml has no [speed]")
        from judge.problem.speed_spec import Timed

        timed = Timed.from_value(item["timed"], file, name)
    warm_up = item.get("warm_up", False)
    if type(warm_up) is not bool:
        raise SpecError(file, "cases", f"case {name!r}: warm_up must be true or false")
    if warm_up and (problem.speed is None or timed is not None):
        raise SpecError(
            file, "cases", f"case {name!r}: warm_up is for an untimed case of a speed problem"
        )
    return Case(name, item["args"], check, public, calibrated, timed, warm_up)


def _merged_check(default: dict[str, object], own: dict[str, object]) -> dict[str, object]:
    """A case's check over its problem's: a case that sets its own tolerance and no `cuda`
    one is checked with its own on every device (the problem's CUDA tolerance was derived
    for the problem's, not for this case's)."""
    merged = {**default, **own}
    if "cuda" not in own and ("rel_tol" in own or "abs_tol" in own):
        merged.pop("cuda", None)
    return merged


def _check_unique(cases: list[Case], file: str) -> None:
    seen: set[str] = set()
    for case in cases:
        if case.name in seen:
            raise SpecError(file, "cases", f"duplicate case name {case.name!r}")
        seen.add(case.name)
