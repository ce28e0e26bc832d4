"""The in-browser judge (what Pyodide runs), exercised here under CPython."""

from __future__ import annotations

import json
import sys
import types

import pytest
from problem_factory import MakeProblem

from judge.browser.bundle import public_bundle
from judge.browser.public_run import judge_bundle, run_public
from judge.problem.spec import load_problem
from judge.verdict import Verdict


@pytest.fixture
def bundle(make_problem: MakeProblem) -> dict[str, object]:
    return json.loads(json.dumps(public_bundle(load_problem(make_problem()))))


def test_bundle_holds_public_material_but_never_the_reference_or_wrong_solutions(
    make_problem: MakeProblem,
) -> None:
    folder = make_problem(
        files={"reference.py": "SECRET_MARKER = 1\ndef add(a, b):\n    return a + b\n"}
    )
    text = json.dumps(public_bundle(load_problem(folder)))
    assert "SECRET_MARKER" not in text
    assert "return a - b" not in text  # solutions/wrong/minus.py
    data = json.loads(text)
    assert {"problem", "statements", "starter", "driver", "cases"} <= set(data)
    assert all(c["expected"] is not None for c in data["cases"])


def test_reference_is_accepted_in_process(bundle: dict[str, object]) -> None:
    report = json.loads(run_public(json.dumps(bundle), "def add(a, b):\n    return a + b\n"))
    assert report["verdict"] == "AC" and report["passed"] == report["total"] == 7
    assert report["score"] == 0  # practice runs never score


def test_wrong_answer_shows_got_and_expected(bundle: dict[str, object]) -> None:
    report = judge_bundle(bundle, "def add(a, b):\n    print('dbg', a)\n    return a - b\n")
    assert report.verdict is Verdict.WA
    assert (report.cases[0].got, report.cases[0].expected) == ("-1", "3")
    assert "dbg 1" in report.stdout


def test_a_failing_case_carries_its_input_and_a_test_that_reproduces_it(
    bundle: dict[str, object],
) -> None:
    """The page shows a failing public case's arguments and offers "copy as a test"."""
    report = judge_bundle(bundle, "def add(a, b):\n    return a - b\n")
    small = report.to_dict()["cases"][0]
    assert small["input"] == {"args": [1, 2]}
    test = str(small["test"])
    assert "import add as submission" in test and "expected = 3" in test
    right = types.ModuleType("add")
    exec("def add(a, b):\n    return a + b\n", right.__dict__)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "add", right)
        exec(compile(test, "test_small.py", "exec"), {})  # a right answer passes it


def test_runtime_error_points_at_the_editor_line(bundle: dict[str, object]) -> None:
    report = judge_bundle(bundle, "def add(a, b):\n    x = None\n    return x + a\n")
    assert report.verdict is Verdict.RE
    assert report.cases[0].line == 3 and "TypeError" in report.cases[0].message


def test_syntax_error_is_ce_with_line(bundle: dict[str, object]) -> None:
    report = judge_bundle(bundle, "def add(a, b):\n  return (\n")
    assert report.verdict is Verdict.CE and report.compile_error is not None
    assert report.compile_error["kind"] == "syntax"


def test_bad_source_is_ce_with_the_reason(bundle: dict[str, object]) -> None:
    report = judge_bundle(bundle, "x = 1\0")
    assert report.verdict is Verdict.CE and "NUL byte" in str(report.compile_error)


def test_exit_inside_a_case_is_re_not_a_dead_worker(bundle: dict[str, object]) -> None:
    report = judge_bundle(bundle, "import sys\ndef add(a, b):\n    sys.exit(0)\n")
    assert report.verdict is Verdict.RE


def test_keyboard_interrupt_stops_the_run(bundle: dict[str, object]) -> None:
    """The page's Stop button raises KeyboardInterrupt inside Pyodide; it must not be swallowed."""
    with pytest.raises(KeyboardInterrupt):
        judge_bundle(bundle, "def add(a, b):\n    raise KeyboardInterrupt\n")


def test_browser_verdicts_match_the_local_judge_on_public_cases(make_problem: MakeProblem) -> None:
    from judge.run.judge_source import judge_source

    problem = load_problem(make_problem())
    bundle = public_bundle(problem)
    for source in [
        "def add(a, b):\n    return a + b\n",
        "def add(a, b):\n    return a - b\n",
        "def add(a, b):\n    return 1 // 0\n",
        # Same JSON text as the right answer, but not plain data: the server refuses it.
        "import enum\nclass N(enum.IntEnum):\n    pass\ndef add(a, b):\n    return N('S', [('V', a + b)]).V\n",
    ]:
        assert judge_bundle(bundle, source).verdict is judge_source(problem, source).verdict
