"""A hidden case's report carries nothing the submission chose (issue 10, section 8;
issue 20, section 3).

Printing was one way to read hidden inputs back; the others were the submission's own
text in the failure message: an exception's message, its class's name, a dict key the
checker quoted, the path of a value the wire refused. Each test encodes the case's
arguments into one of them and requires that no hidden case's result shows it, while a
public case still shows everything a learner needs.
"""

from __future__ import annotations

import json

import pytest
from problem_factory import MakeProblem

from judge.problem.cases import build_cases
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

SECRET_SEED = 987654321
LEAKS = {
    "exception message": "def add(a, b):\n    raise ValueError(f'LEAK{a}_{b}')\n",
    "exception class": (
        "def add(a, b):\n    raise type(f'LEAK{a}_{b}'.replace('-', 'm'), (Exception,), {})()\n"
    ),
    "refused value path": (
        "class Odd:\n    pass\ndef add(a, b):\n    return [{f'LEAK{a}_{b}': Odd()}]\n"
    ),
}


@pytest.mark.parametrize("channel", sorted(LEAKS))
def test_no_hidden_input_reaches_the_learner_through(
    make_problem: MakeProblem, channel: str
) -> None:
    problem = load_problem(make_problem())
    report = judge_source(problem, LEAKS[channel], seed=SECRET_SEED)
    assert report.verdict in (Verdict.RE, Verdict.WA)
    cases = report.to_dict()["cases"]
    hidden = [c for c in cases if not c["public"]]
    public = [c for c in cases if c["public"]]
    assert hidden and all("LEAK" not in json.dumps(c) for c in hidden), hidden
    assert all(c["message"] for c in hidden)  # still says how it failed
    assert any("LEAK" in json.dumps(c) for c in public)  # public cases show it all


def test_a_builtin_exception_is_not_named_on_hidden_cases(make_problem: MakeProblem) -> None:
    """Issue 20: even a built-in's name is withheld, since a class of the submission's own
    may be called "KeyError" (the old check by name let that through)."""
    problem = load_problem(make_problem())
    report = judge_source(problem, "def add(a, b):\n    return 1 // 0\n", seed=SECRET_SEED)
    hidden = [c for c in report.cases if not c.public]
    assert hidden and all(c.text and c.text.key == "hidden.runtime_error" for c in hidden)
    assert not any("ZeroDivisionError" in json.dumps(c.to_dict()) for c in hidden)
    # No line or traceback: a submission can raise from (or name) any line it likes.
    assert all(c.line is None and not c.traceback for c in hidden)
    public = [c for c in report.cases if c.public]
    assert all(c.line == 2 and c.traceback for c in public)
    assert all("ZeroDivisionError" in c.message for c in public)


# Issue 20, section 3: a submission that knows a hidden case's inputs encodes one of them
# (`a`, 0..99) in what the report shows of the case. The reference answers 200 zeros.
LISTY_CASES = """\
def public_cases():
    return [{"name": "small", "args": [1, 2]}, {"name": "seven", "args": [7, 3]}]


def generated_cases(rng):
    return [{"name": f"random-{i}", "args": [rng.randint(0, 99), rng.randint(0, 99)]}
            for i in range(8)]


def run(sub, args):
    return sub.add(*args)
"""
LISTY_REFERENCE = "def add(a, b):\n    return [0] * 200\n"
ENCODERS = {
    # "at [a]": the first mismatch is where it chose to put it.
    "mismatch index": "def add(a, b):\n    out = [0] * 200\n    out[a] = 1\n    return out\n",
    # Classes of its own, each named after a built-in (they pass a check by name).
    "exception class": (
        "NAMES = ['KeyError', 'ValueError', 'TypeError', 'IndexError']\n"
        "def add(a, b):\n    raise type(NAMES[a % 4], (Exception,), {})()\n"
    ),
    # The line it raises from: line 3 + 2a.
    "raising line": "def add(a, b):\n"
    + "".join(f"    if a == {i}:\n        raise ValueError()\n" for i in range(100)),
    # Its time: a sleep of (a % 8) * 25 ms, then the right answer.
    "time": (
        "import time\ndef add(a, b):\n    time.sleep((a % 8) * 0.025)\n    return [0] * 200\n"
    ),
}
STEP_MS = 200.0  # a tenth of the problem's 2 s per case


def _listy(make_problem: MakeProblem):  # type: ignore[no-untyped-def]
    files = {"cases.py": LISTY_CASES, "reference.py": LISTY_REFERENCE}
    files["solutions/wrong/minus.py"] = "# expect: WA at case small\n# differs: 1 line\n" + (
        "def add(a, b):\n    return [1] * 200\n"
    )
    files["solutions/wrong/crash.py"] = None
    return load_problem(make_problem(files=files, per_case=2.0, total=30.0, slug="listy"))


@pytest.mark.parametrize("channel", sorted(ENCODERS))
def test_a_hidden_input_encoded_in_what_a_case_shows_does_not_come_back(
    make_problem: MakeProblem, channel: str
) -> None:
    """Each hidden case shows its verdict, the judge's one sentence for it and a time in
    tenths of the limit: every hidden case looks the same whatever `a` was (the seed's eight
    cases draw different values of `a`), and nothing shows where, what or when exactly."""
    problem = _listy(make_problem)
    report = judge_source(problem, ENCODERS[channel], seed=SECRET_SEED)
    shown = report.to_dict()
    hidden = [c for c in shown["cases"] if not c["public"]]  # type: ignore[union-attr]
    assert len(hidden) == 8
    inputs = {c.args[0] for c in build_cases(problem, SECRET_SEED) if not c.public}
    assert len(inputs) > 4  # the channel had values to carry
    assert all(c["time_ms"] % STEP_MS == 0 and c["time_ms"] > 0 for c in hidden), hidden
    assert shown["time_ms"] % STEP_MS == 0  # the run's time holds the hidden cases' times
    looks = {
        json.dumps({k: v for k, v in c.items() if k not in ("name", "time_ms")}) for c in hidden
    }
    assert len(looks) == 1, looks  # one look for every value of `a`
    (look,) = (json.loads(x) for x in looks)
    assert set(look) <= {"public", "verdict", "message", "message_key", "message_args"}
    assert look.get("message_args", {}) == {}  # a fixed sentence, nothing filled in


@pytest.mark.parametrize("channel", sorted(ENCODERS))
def test_public_cases_still_show_every_detail_of(make_problem: MakeProblem, channel: str) -> None:
    problem = _listy(make_problem)
    report = judge_source(problem, ENCODERS[channel], seed=SECRET_SEED)
    seven = next(c for c in report.cases if c.name == "seven")
    if channel == "time":  # right answers: the exact time, not a tenth of the limit
        assert seven.verdict is Verdict.AC and seven.time_ms % STEP_MS != 0
        return
    assert seven.verdict is not Verdict.AC and seven.input is not None and seven.test
    if channel == "mismatch index":
        assert "[7]" in seven.message and seven.got is not None and seven.expected is not None
    elif channel == "exception class":
        assert "IndexError" in seven.message and seven.line == 3 and seven.traceback
    else:
        assert seven.line == 17 and seven.traceback  # 3 + 2 x 7


def test_a_hidden_case_over_its_limit_shows_the_limit_not_the_kill_time(
    make_problem: MakeProblem,
) -> None:
    problem = _listy(make_problem)
    source = (
        "import time\ndef add(a, b):\n    if a > 9:\n        time.sleep(60)\n    return [0] * 200\n"
    )
    report = judge_source(problem, source, seed=SECRET_SEED)
    late = next(c for c in report.cases if c.verdict is Verdict.TLE)
    assert not late.public and late.text and late.text.key == "hidden.time_limit"
    assert late.time_ms % STEP_MS == 0 and late.time_ms >= 2000.0


@pytest.mark.parametrize(
    ("got", "expected"),
    [
        ({"a": 1, "LEAK-7_3": 2}, {"a": 1}),  # a key the submission chose
        ([0] * 77, [0, 0]),  # a length it chose
    ],
)
def test_a_hidden_mismatch_quotes_nothing_the_submission_chose(got, expected) -> None:
    from judge.problem.checkers import CheckSpec, check

    mismatch = check(got, expected, CheckSpec("value"))
    assert mismatch is not None
    hidden = mismatch.describe(reveal=False)
    assert "LEAK" not in hidden and "77" not in hidden and hidden


def test_a_generated_case_is_named_for_the_seed_that_drew_it(make_problem: MakeProblem) -> None:
    """Regression (issue 23): `random-00` passed in Run while a hidden `random-00` failed on
    Submit; they are different cases and now have different names."""
    problem = load_problem(make_problem())
    public = build_cases(problem, None)
    hidden = build_cases(problem, SECRET_SEED)
    given = [c.name for c in public if not c.name.startswith("public-")]
    assert given == ["small", "negative"]  # the problem's own public cases keep their names
    assert [c.name for c in public[2:]] == [f"public-random-{i}" for i in range(5)]
    assert [c.name for c in hidden[2:]] == [f"hidden-random-{i}" for i in range(5)]
    assert not {c.name for c in public} & {c.name for c in hidden[2:]}


def test_a_generated_name_that_already_says_its_seed_is_not_prefixed_twice(
    make_problem: MakeProblem,
) -> None:
    generated = "def generated_cases(rng):\n    return [{'name': 'hidden-long', 'args': [1, 2]}]\n"
    folder = make_problem()
    source = (folder / "cases.py").read_text()
    start = source.index("def generated_cases")
    end = source.index("\ndef ", start + 1)
    (folder / "cases.py").write_text(source[:start] + generated + source[end:])
    problem = load_problem(folder)
    assert build_cases(problem, SECRET_SEED)[-1].name == "hidden-long"
    assert build_cases(problem, None)[-1].name == "public-hidden-long"
