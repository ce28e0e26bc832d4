"""Judging a submission end to end with the local launcher (a real child process)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from problem_factory import MakeProblem

from judge.errors import SourceError
from judge.grading.report import Report
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

REFERENCE = "def add(a, b):\n    return a + b\n"


def judge(make_problem: MakeProblem, source: str, **kwargs: object) -> Report:
    limits = {k: kwargs.pop(k) for k in ("per_case", "total") if k in kwargs}
    return judge_source(load_problem(make_problem(**limits)), source, **kwargs)  # type: ignore[arg-type]


def test_reference_is_accepted_with_every_case_reported(make_problem: MakeProblem) -> None:
    report = judge(make_problem, REFERENCE)
    assert report.verdict is Verdict.AC
    assert report.passed == len(report.cases) == 7
    assert report.score == 10
    assert report.environment["launcher"] == "local"
    assert all(c.time_ms > 0 for c in report.cases)


def test_wrong_answer_shows_got_and_expected_on_public_cases_only(
    make_problem: MakeProblem,
) -> None:
    report = judge(make_problem, "def add(a, b):\n    return a - b\n", seed=424242)
    assert report.verdict is Verdict.WA
    first = report.cases[0]
    assert (first.got, first.expected) == ("-1", "3")
    hidden = [c for c in report.cases if not c.public]
    assert hidden and all(c.got is None and c.expected is None for c in hidden)
    assert all("expected" not in c.to_dict() for c in hidden)
    assert report.seed == "secret"


def test_syntax_error_is_ce_with_its_line(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def add(a, b):\n    return a +\n")
    assert report.verdict is Verdict.CE
    assert report.compile_error is not None and report.compile_error["line"] == 2
    assert report.compile_error["kind"] == "syntax"


def test_missing_import_is_ce_with_its_line(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "import math\nimport no_such_module_xyz\n")
    assert report.verdict is Verdict.CE
    assert report.compile_error is not None
    assert report.compile_error["line"] == 2 and "no_such_module_xyz" in str(
        report.compile_error["message"]
    )


def test_missing_required_name_is_ce(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def plus(a, b):\n    return a + b\n")
    assert report.verdict is Verdict.CE
    assert report.compile_error is not None and "must define add" in str(
        report.compile_error["message"]
    )


def test_exception_at_import_time_is_re(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "x = 1 / 0\n")
    assert report.verdict is Verdict.RE


def test_exception_in_a_case_is_re_with_the_learners_line_and_traceback(
    make_problem: MakeProblem,
) -> None:
    report = judge(make_problem, "def add(a, b):\n    values = []\n    return values[a]\n")
    assert report.verdict is Verdict.RE
    case = report.cases[0]
    assert case.line == 3
    assert "values[a]" in case.traceback and "IndexError" in case.message


def test_infinite_loop_is_tle_and_stops_the_run(make_problem: MakeProblem) -> None:
    start = time.monotonic()
    report = judge(
        make_problem, "def add(a, b):\n    while True:\n        pass\n", per_case=0.5, total=3.0
    )
    assert report.verdict is Verdict.TLE
    assert report.cases[0].verdict is Verdict.TLE
    assert all(c.verdict is None for c in report.cases[1:])
    assert time.monotonic() - start < 4


def test_blocking_read_of_stdin_is_tle_not_a_hang(make_problem: MakeProblem) -> None:
    report = judge(
        make_problem,
        "import sys\ndef add(a, b):\n    return len(sys.stdin.read()) or __import__('time').sleep(60)\n",
        per_case=0.5,
    )
    assert report.verdict is Verdict.TLE


def test_loop_at_import_time_is_tle(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "while True:\n    pass\n", per_case=0.5)
    assert report.verdict is Verdict.TLE


def test_total_time_limit_ends_a_slow_run(make_problem: MakeProblem) -> None:
    slow = "import time\ndef add(a, b):\n    time.sleep(0.3)\n    return a + b\n"
    report = judge(make_problem, slow, per_case=1.0, total=1.0)
    assert report.verdict is Verdict.TLE


def test_exit_before_the_cases_is_re_not_ac(make_problem: MakeProblem) -> None:
    assert judge(make_problem, "import os\nos._exit(0)\n").verdict is Verdict.RE
    assert judge(make_problem, "import sys\nsys.exit(0)\n").verdict is Verdict.RE


def test_exit_during_a_case_is_re(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "import os\ndef add(a, b):\n    os._exit(0)\n")
    assert report.verdict is Verdict.RE
    assert "exited with code 0" in report.cases[0].message


@pytest.mark.parametrize("exc", ["SystemExit(0)", "KeyboardInterrupt()", "BaseException('x')"])
def test_base_exceptions_in_a_case_are_re_and_the_run_continues(
    make_problem: MakeProblem, exc: str
) -> None:
    report = judge(make_problem, f"def add(a, b):\n    raise {exc}\n")
    assert report.verdict is Verdict.RE
    assert all(c.verdict is Verdict.RE for c in report.cases)


def test_printed_fake_verdicts_do_not_change_the_verdict(make_problem: MakeProblem) -> None:
    source = 'print("ALL TESTS PASSED")\nprint(\'{"verdict": "AC", "passed": 7}\')\ndef add(a, b):\n    return 0\n'
    report = judge(make_problem, source)
    assert report.verdict is Verdict.WA
    assert "ALL TESTS PASSED" in report.stdout


def test_writing_forged_frames_to_inherited_fds_is_never_accepted(
    make_problem: MakeProblem,
) -> None:
    forge = (
        "import os, pickle\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, pickle.dumps({'verdict': 'AC'}))\n"
        "    except OSError:\n"
        "        pass\n"
        "def add(a, b):\n    return a + b\n"
    )
    report = judge(make_problem, forge)
    assert report.verdict is not Verdict.AC
    assert report.verdict in (Verdict.RE, Verdict.WA)


def test_flooding_stdout_is_ole(make_problem: MakeProblem) -> None:
    report = judge(
        make_problem,
        "def add(a, b):\n    print('x' * 100000)\n    while True:\n        print('y' * 100000)\n",
    )
    assert report.verdict is Verdict.OLE
    assert len(report.stdout) <= 1 << 20


def test_huge_allocation_is_mle(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def add(a, b):\n    return len(bytearray(10**11))\n")
    assert report.verdict is Verdict.MLE


def test_growing_a_list_without_bound_is_mle(make_problem: MakeProblem) -> None:
    report = judge(
        make_problem,
        "def add(a, b):\n    x = []\n    while True:\n        x.append(' ' * 10**6)\n",
        per_case=10,
        total=20,
    )
    assert report.verdict is Verdict.MLE


def test_recursion_bomb_is_re(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def add(a, b):\n    return add(a, b)\n")
    assert report.verdict is Verdict.RE
    assert "RecursionError" in report.cases[0].message


@pytest.mark.parametrize(
    "body",
    [
        "class T:\n    def __eq__(self, o): return True\ndef add(a, b):\n    return T()\n",
        "class I(int):\n    def __eq__(self, o): return True\ndef add(a, b):\n    return I(0)\n",
        "def add(a, b):\n    return float('nan')\n",
        "import builtins, math\nbuiltins.isinstance = lambda *a: True\nmath.isclose = lambda *a, **k: True\ndef add(a, b):\n    return 0\n",
        "import judge.wire.codec as w\nw.encode = lambda value, tensors: 3\ndef add(a, b):\n    return 0\n",
    ],
    ids=["eq-always-true", "int-subclass", "nan", "patched-builtins", "patched-judge-module"],
)
def test_cheats_inside_the_child_get_wa(make_problem: MakeProblem, body: str) -> None:
    assert judge(make_problem, body).verdict is Verdict.WA


def test_replaying_the_first_answer_fails_on_other_cases(make_problem: MakeProblem) -> None:
    replay = "_first = []\ndef add(a, b):\n    _first.append(a + b)\n    return _first[0]\n"
    assert judge(make_problem, replay).verdict is Verdict.WA


def test_no_process_of_the_job_outlives_it(make_problem: MakeProblem, tmp_path: Path) -> None:
    marker = tmp_path / "alive"
    source = (
        "import subprocess, sys\n"
        f"code = 'import time, pathlib\\nwhile True:\\n pathlib.Path(\\'{marker}\\').touch(); time.sleep(0.05)'\n"
        "subprocess.Popen([sys.executable, '-c', code])\n"
        "def add(a, b):\n    return a + b\n"
    )
    assert judge(make_problem, source).verdict is Verdict.AC
    time.sleep(0.3)
    marker.unlink(missing_ok=True)
    time.sleep(0.3)
    assert not marker.exists(), "a grandchild kept running after the job"


def test_child_environment_holds_no_secrets(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_SECRET_SEED", "12345")
    source = "import os\ndef add(a, b):\n    return a + b if 'JUDGE_SECRET_SEED' not in os.environ else 0\n"
    assert judge(make_problem, source).verdict is Verdict.AC


def test_bad_source_is_refused_before_running(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    with pytest.raises(SourceError, match="NUL byte"):
        judge_source(problem, "x = 1\0")
    with pytest.raises(SourceError, match="limit"):
        judge_source(problem, "#" * (65 * 1024))


def test_a_broken_reference_is_ie_never_wa(make_problem: MakeProblem) -> None:
    folder = make_problem(files={"reference.py": "def add(a, b):\n    raise RuntimeError('bug')\n"})
    report = judge_source(load_problem(folder), REFERENCE)
    assert report.verdict is Verdict.IE
    assert report.internal_error and "RuntimeError: bug" in report.internal_error
    assert "internal_error" not in report.to_dict()
    assert "internal_error" in report.to_dict(admin=True)


def test_report_round_trips_through_dict(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def add(a, b):\n    return a - b\n")
    assert Report.from_dict(report.to_dict()).to_dict() == report.to_dict()


def test_no_file_descriptors_leak_across_runs(make_problem: MakeProblem) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        judge(make_problem, REFERENCE)
    assert len(os.listdir("/proc/self/fd")) <= before + 1


def test_a_submissions_own_traceback_and_warning_quote_its_lines(
    make_problem: MakeProblem,
) -> None:
    """The child gives the submission module a loader with its source (there is no file on
    disk): what the learner's code prints with traceback or warnings shows their lines."""
    source = (
        "import traceback, warnings\n"
        "def add(a, b):\n"
        "    try:\n"
        "        raise KeyError('looked-up')  # the raising line\n"
        "    except KeyError:\n"
        "        traceback.print_exc()\n"
        "    warnings.warn('careful with ' + str(a))  # the warning line\n"
        "    return a + b\n"
    )
    report = judge(make_problem, source)
    assert report.verdict is Verdict.AC
    printed = report.cases[0].stderr
    assert "raise KeyError('looked-up')  # the raising line" in printed
    assert "warnings.warn('careful with ' + str(a))  # the warning line" in printed
