"""A hidden case's report carries nothing the submission chose (issue 10, section 8).

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

from judge.judging import judge_source
from judge.spec import load_problem
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


def test_a_builtin_exception_keeps_its_name_on_hidden_cases(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    report = judge_source(problem, "def add(a, b):\n    return 1 // 0\n", seed=SECRET_SEED)
    hidden = [c for c in report.cases if not c.public]
    assert hidden and all(c.message == "ZeroDivisionError raised" for c in hidden)
    # No line or traceback: a submission can raise from (or name) any line it likes.
    assert all(c.line is None and not c.traceback for c in hidden)
    public = [c for c in report.cases if c.public]
    assert all(c.line == 2 and c.traceback for c in public)


@pytest.mark.parametrize(
    ("got", "expected"),
    [
        ({"a": 1, "LEAK-7_3": 2}, {"a": 1}),  # a key the submission chose
        ([0] * 77, [0, 0]),  # a length it chose
    ],
)
def test_a_hidden_mismatch_quotes_nothing_the_submission_chose(got, expected) -> None:
    from judge.checkers import CheckSpec, check

    mismatch = check(got, expected, CheckSpec("value"))
    assert mismatch is not None
    hidden = mismatch.describe(reveal=False)
    assert "LEAK" not in hidden and "77" not in hidden and hidden
