""" "Copy as a test": a failing public case as plain Python (issue 12, section 1).

Each test writes the snippet and the learner's module into a folder and runs the snippet
with this interpreter, as a learner would: it must fail where the judge said, and pass
once the code is right.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from problem_factory import MakeProblem

from judge.grading.report import CaseResult, Report
from judge.pictures.case_input import CaseInput
from judge.pictures.reproduce import Reproducer, driver_code
from judge.problem.checkers import CheckSpec
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
ADD = "def add(a, b):\n    return a + b\n"


def _case(report: Report, name: str) -> CaseResult:
    return next(c for c in report.cases if c.name == name)


def run_snippet(
    folder: Path, test: str, solution: str, module: str
) -> subprocess.CompletedProcess[str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / module).write_text(solution, encoding="utf-8")
    (folder / "test_case.py").write_text(test, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "test_case.py"], cwd=folder, capture_output=True, text=True, timeout=60
    )


def test_a_traces_test_fails_at_the_judges_step_and_passes_on_the_reference(
    tmp_path: Path,
) -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    wrong = (PROBLEMS / "block-table/solutions/wrong/free_first_block_first.py").read_text()
    failed = _case(judge_source(problem, wrong), "free-order")  # WA at step 2
    assert failed.test is not None
    compile(failed.test, "test_case.py", "exec")  # plain Python
    done = run_snippet(tmp_path / "wrong", failed.test, wrong, "block_table.py")
    assert done.returncode == 1
    assert "AssertionError: step 2 (free(seq_id=1))" in done.stderr
    reference = (PROBLEMS / "block-table/reference.py").read_text()
    done = run_snippet(tmp_path / "right", failed.test, reference, "block_table.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "free-order: as expected"


def test_a_values_test_asserts_the_expected_value(
    make_problem: MakeProblem, tmp_path: Path
) -> None:
    problem = load_problem(make_problem())
    wrong = "def add(a, b):\n    return a - b\n"
    failed = _case(judge_source(problem, wrong), "small")
    assert failed.test is not None and "args = [1, 2]" in failed.test
    done = run_snippet(tmp_path / "wrong", failed.test, wrong, "add.py")
    assert done.returncode == 1 and "expected 3" in done.stderr
    assert run_snippet(tmp_path / "right", failed.test, ADD, "add.py").returncode == 0


def test_the_test_compares_floats_within_the_cases_tolerance(tmp_path: Path) -> None:
    """The value checker allows rel_tol: a test asserting == would fail a right answer."""
    snippet = Reproducer("add", "def run(sub, args):\n    return sub.add(*args)\n").snippet(
        "half", CaseInput([1, 2]), 3.0, CheckSpec("value", rel_tol=1e-6)
    )
    assert snippet is not None
    close = "def add(a, b):\n    return (a + b) * (1 + 1e-9)\n"
    assert run_snippet(tmp_path / "close", snippet, close, "add.py").returncode == 0
    far = "def add(a, b):\n    return (a + b) * (1 + 1e-3)\n"
    assert run_snippet(tmp_path / "far", snippet, far, "add.py").returncode == 1


def test_the_exact_checkers_test_tells_one_from_true(tmp_path: Path) -> None:
    snippet = Reproducer("add", "def run(sub, args):\n    return sub.add(*args)\n").snippet(
        "flag", CaseInput([1, 0]), True, CheckSpec("exact")
    )
    assert snippet is not None
    one = "def add(a, b):\n    return a + b\n"
    assert run_snippet(tmp_path / "one", snippet, one, "add.py").returncode == 1
    true = "def add(a, b):\n    return True\n"
    assert run_snippet(tmp_path / "true", snippet, true, "add.py").returncode == 0


def test_a_solution_file_that_is_no_module_name_is_loaded_by_its_path(
    make_problem: MakeProblem, tmp_path: Path
) -> None:
    problem = load_problem(make_problem())
    wrong = "def add(a, b):\n    return a - b\n"
    report = judge_source(problem, wrong, solution="my solution.py")
    test = _case(report, "small").test
    assert test is not None and "spec_from_file_location('submission', 'my solution.py')" in test
    assert run_snippet(tmp_path, test, ADD, "my solution.py").returncode == 0


def test_a_test_without_plain_expected_data_prints_what_the_code_returns() -> None:
    """A NaN (or a tensor) has no Python literal: the test runs the case and prints."""
    snippet = Reproducer("add", "def run(sub, args):\n    return sub.add(*args)\n").snippet(
        "nan", CaseInput([1, 2]), float("nan"), CheckSpec("float")
    )
    assert snippet is not None and "print(got)" in snippet and "assert" not in snippet
    compile(snippet, "test_case.py", "exec")


def test_the_driver_carries_run_and_what_it_uses_only() -> None:
    source = '''"""Cases."""
import random
import math

LIMIT = 3
UNUSED = 4


def public_cases():
    return [{"name": "a", "args": LIMIT}]


def generated_cases(rng):
    return [{"name": f"g{i}", "args": rng.random()} for i in range(LIMIT)]


def _twice(x):
    return 2 * math.floor(x) + LIMIT


def run(sub, args):
    return sub.f(_twice(args))
'''
    code = driver_code(source)
    assert "def run(sub, args):" in code and "def _twice(x):" in code
    assert "import math" in code and "LIMIT = 3" in code
    for absent in ("import random", "UNUSED", "public_cases", "generated_cases", '"""Cases."""'):
        assert absent not in code, absent
    compile(code, "driver.py", "exec")


def test_a_long_expected_value_is_pasted_as_json_text_and_still_checked(tmp_path: Path) -> None:
    """pprint took a tenth of a second per long trace; past a few KiB the test pastes
    json.loads("...") of the same data instead."""
    args = list(range(3000))
    snippet = Reproducer("add", "def run(sub, args):\n    return sub.double(args)\n").snippet(
        "long", CaseInput(args), [2 * x for x in args], CheckSpec("exact")
    )
    assert snippet is not None and "expected = json.loads('[0, 2, 4, " in snippet
    right = "def double(xs):\n    return [2 * x for x in xs]\n"
    assert run_snippet(tmp_path / "right", snippet, right, "add.py").returncode == 0
    wrong = "def double(xs):\n    return [2 * x for x in xs[:-1]] + [0]\n"
    assert run_snippet(tmp_path / "wrong", snippet, wrong, "add.py").returncode == 1
