"""A known-bad solution and what its header says it proves.

The first two lines of `solutions/wrong/*.py`:

    # expect: WA at case evict-lru step 7 (append(seq_id=3, n=5))
    # differs: 2 lines

`expect:` is the verdict, then where the run first fails, on the public seed:
`at case NAME` (the first case that is not AC), optionally `step N` and `(OP)` when the
case is a trace and the checker names the first differing step (`step N (OP)` exactly as
the checker's message prints it; the op may be left out), or `at load` when the
submission fails before any case runs (a compile error, an exception while importing).
`differs:` is the most lines of code that may differ from reference.py: the bug and
nothing else (blank and comment-only lines aside; `judge check` counts with difflib).

A quiz's known-wrong answer sheet (`solutions/wrong/*.json`) says the same in its
top-level `"_expect"` key, without the `# expect: ` prefix and without `differs`:

    {"_expect": "WA at case tokens-without-cache", "tokens-without-cache": "n * n / 2", ...}
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from judge.errors import SpecError
from judge.record import record
from judge.verdict import Verdict

_EXPECT_RE = re.compile(r"^# expect: (?P<declared>.*)$")
_DECLARED_RE = re.compile(r"^(?P<verdict>\S+)(?: at (?P<where>.*\S))?\s*$")
_CASE_RE = re.compile(
    r"^case (?P<case>[a-z0-9][a-z0-9._-]*)(?: step (?P<step>\d+)(?: \((?P<op>.+)\))?)?$"
)
_DIFFERS_RE = re.compile(r"^# differs: (?P<n>\d+) lines?\s*$")
EXPECT_FORM = "# expect: VERDICT at case NAME [step N [(OP)]]' or '# expect: VERDICT at load"
DIFFERS_FORM = "# differs: N lines"


@record
class FirstFailure:
    """Where a run first fails: a verdict at a case (and a trace's step), or at load."""

    verdict: Verdict
    case: str | None = None  # None: at load, before any case ran
    step: int | None = None
    op: str | None = None  # None in a header: any op at that step

    def __str__(self) -> str:
        if self.case is None:
            return f"{self.verdict.value} at load"
        text = f"{self.verdict.value} at case {self.case}"
        if self.step is not None:
            text += f" step {self.step}"
        if self.op is not None:
            text += f" ({self.op})"
        return text

    def admits(self, got: FirstFailure) -> bool:
        """Whether `got` is what this declaration says; one that names no op admits any."""
        op = got.op if self.op is None else self.op
        return (self.verdict, self.case, self.step, op) == (
            got.verdict,
            got.case,
            got.step,
            got.op,
        )


@record
class WrongSolution:
    path: Path
    first_failure: FirstFailure
    differs: int | None  # most lines of code that may differ from reference.py; None: a quiz

    @property
    def expect(self) -> Verdict:
        return self.first_failure.verdict


def load_wrong_solution(path: Path, file: str) -> WrongSolution:
    """Read the header of one wrong solution; SpecError names `file` and the field."""
    lines = path.read_text(encoding="utf-8").splitlines()
    first = lines[0] if lines else ""
    second = lines[1] if len(lines) > 1 else ""
    return WrongSolution(path, parse_expect(first, file), parse_differs(second, file))


def load_wrong_sheet(path: Path, file: str) -> WrongSolution:
    """A quiz's known-wrong answer sheet: its "_expect" key declares where it fails."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SpecError(file, None, f"not JSON: {exc}") from None
    declared = data.get("_expect") if type(data) is dict else None
    if type(declared) is not str:
        raise SpecError(file, "_expect", 'must be a string such as "WA at case QUESTION"')
    return WrongSolution(path, parse_declared(declared, file, "_expect"), None)


def parse_expect(line: str, file: str) -> FirstFailure:
    """Line 1: `# expect: VERDICT at case NAME [step N [(OP)]]` or `... at load`."""
    match = _EXPECT_RE.match(line)
    if match is None or _DECLARED_RE.match(match.group("declared")) is None:
        raise SpecError(file, "expect", f"first line must be '{EXPECT_FORM}', got {line!r:.80}")
    return parse_declared(match.group("declared"), file, "expect")


def parse_declared(text: str, file: str, field: str) -> FirstFailure:
    """`VERDICT at case NAME [step N [(OP)]]` or `VERDICT at load`; errors name `field`."""
    match = _DECLARED_RE.match(text)
    if match is None:
        raise SpecError(file, field, f"must be 'VERDICT at case NAME', got {text!r:.80}")
    try:
        verdict = Verdict.parse(match.group("verdict"))
    except ValueError as exc:
        raise SpecError(file, field, str(exc)) from None
    if verdict in (Verdict.AC, Verdict.IE):
        raise SpecError(
            file, field, f"{verdict.value} is not a failure a wrong solution can declare"
        )
    where = match.group("where")
    if where is None:
        raise SpecError(
            file,
            field,
            f"{text!r} says no place: add 'at case NAME' (the first case it must fail) "
            "or 'at load'",
        )
    if where == "load":
        return FirstFailure(verdict)
    place = _CASE_RE.match(where)
    if place is None:
        raise SpecError(
            file, field, f"{where!r} must be 'case NAME', 'case NAME step N (OP)' or 'load'"
        )
    step = place.group("step")
    return FirstFailure(
        verdict, place.group("case"), int(step) if step is not None else None, place.group("op")
    )


def parse_differs(line: str, file: str) -> int:
    """Line 2: `# differs: N lines`, N >= 1."""
    match = _DIFFERS_RE.match(line)
    if match is None:
        raise SpecError(file, "differs", f"second line must be '{DIFFERS_FORM}', got {line!r:.80}")
    count = int(match.group("n"))
    if count < 1:
        raise SpecError(file, "differs", "a wrong solution differs from reference.py by >= 1 line")
    return count
