"""What print() wrote, attributed to the case that printed it (issue 12, section 1).

Before, a report had one block of output after all cases, and a learner could not tell
which case a debugging line came from. The trusted parent now reads each case's output
between its request and its answer (the child flushes before answering); the browser
judge captures each case on its own. The total limits and the withholding of hidden
cases' output are unchanged.
"""

from __future__ import annotations

import json

import pytest
from problem_factory import MakeProblem

from judge.browser.bundle import public_bundle
from judge.browser.public_run import OUTPUT_CAP, judge_bundle
from judge.grading.report import Report
from judge.problem.limits import Limits
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

SECRET_SEED = 987654321
PRINTS = (
    "import sys\n"
    "print('loading')\n"
    "def add(a, b):\n"
    "    print('ADD', a, b)\n"
    "    print('WARN', a, file=sys.stderr)\n"
    "    return a + b\n"
)


def _local(make_problem: MakeProblem, source: str, seed: int | None = None) -> Report:
    return judge_source(load_problem(make_problem()), source, seed=seed)


def _browser(make_problem: MakeProblem, source: str) -> Report:
    bundle = json.loads(json.dumps(public_bundle(load_problem(make_problem()))))
    return judge_bundle(bundle, source)


@pytest.mark.parametrize("judge", [_local, _browser], ids=["child", "browser"])
def test_each_case_shows_what_it_printed(make_problem: MakeProblem, judge: object) -> None:
    report = judge(make_problem, PRINTS)  # type: ignore[operator]
    assert report.verdict is Verdict.AC
    small, negative = report.cases[0], report.cases[1]
    assert (small.stdout, small.stderr) == ("ADD 1 2\n", "WARN 1\n")
    assert (negative.stdout, negative.stderr) == ("ADD -5 3\n", "WARN -5\n")
    assert all(c.stdout.startswith("ADD ") and c.stdout.count("\n") == 1 for c in report.cases)
    # Printed while loading belongs to no case; the whole output is still there, in order.
    assert "loading" not in small.stdout
    assert report.stdout.startswith("loading\nADD 1 2\nADD -5 3\n")
    assert report.to_dict()["cases"][0]["stdout"] == "ADD 1 2\n"


def test_a_case_that_prints_nothing_has_no_output_in_its_result(
    make_problem: MakeProblem,
) -> None:
    source = "def add(a, b):\n    if a == 1:\n        print('one')\n    return a + b\n"
    cases = _local(make_problem, source).to_dict()["cases"]
    assert cases[0]["stdout"] == "one\n"
    assert all("stdout" not in c and "stderr" not in c for c in cases[1:])


def test_what_a_failing_case_printed_stays_with_it(make_problem: MakeProblem) -> None:
    source = "def add(a, b):\n    print('before', a)\n    raise ValueError('no')\n"
    report = _local(make_problem, source)
    assert report.cases[0].verdict is Verdict.RE and report.cases[0].stdout == "before 1\n"
    assert report.cases[1].stdout == "before -5\n"


def test_hidden_cases_output_is_withheld_not_attributed(make_problem: MakeProblem) -> None:
    report = _local(make_problem, PRINTS, seed=SECRET_SEED)
    hidden = [c for c in report.cases if not c.public]
    assert hidden and all(c.stdout == "" and c.stderr == "" for c in hidden)
    assert report.withheld_stdout.count("ADD") == len(hidden)
    public = [c for c in report.cases if c.public]
    assert [c.stdout for c in public] == ["ADD 1 2\n", "ADD -5 3\n"]


def test_the_browsers_capture_of_one_case_says_how_much_it_cut(
    make_problem: MakeProblem,
) -> None:
    source = f"def add(a, b):\n    print('x' * {OUTPUT_CAP + 500}, end='')\n    return a + b\n"
    report = _browser(make_problem, source)
    text = report.cases[0].stdout
    assert text.startswith("x" * OUTPUT_CAP) and "500 more characters not shown" in text
    assert "more characters not shown" in report.stdout


def test_the_case_that_prints_past_the_limit_is_ole_and_keeps_what_was_kept(
    make_problem: MakeProblem,
) -> None:
    """The total limit still holds with output kept per case: the case whose printing
    crossed it is OLE, the cases before it keep their own output, none after it runs."""
    problem = load_problem(make_problem())
    limits = Limits(time_per_case_s=2.0, total_time_s=10.0, memory_mb=256, output_bytes=1000)
    source = "def add(a, b):\n    print('y' * 600)\n    return a + b\n"
    report = judge_source(problem, source, limits=limits)
    assert [c.verdict for c in report.cases[:3]] == [Verdict.AC, Verdict.OLE, None]
    assert report.verdict is Verdict.OLE
    assert report.cases[0].stdout == "y" * 600 + "\n"
    assert len(report.stdout) <= 1000
