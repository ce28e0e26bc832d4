"""Red-team findings against the torch tier's CPU-time rule and speed scoring, as tests.

Each test is a hostile submission that the documented protection should stop; see the
report of the red-team pass that added this file.
"""

from __future__ import annotations

from problem_factory import MakeProblem

from judge.problem.spec import ProblemSpec, load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

TOML = """\
slug = "work"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "计算"
en = "Work"

[limits]
time_per_case_s = 30.0
total_time_s = 60.0
memory_mb = 128
cpu_vs_reference = 2.0
cpu_slack_s = 0.05

[submission]
names = ["total"]

[checker]
kind = "value"
"""

CASES = """\
def public_cases():
    return [
        {"name": "small", "args": 50},
        {"name": "long", "args": 3000, "calibrated": True},
    ]


def generated_cases(rng):
    return []


def run(sub, args):
    return sub.total(args)
"""
LINEAR = """\
def total(n):
    acc = 0
    for _ in range(40):
        for i in range(n):
            acc += i
    return acc // 40
"""
# The quadratic loop of tests/judge/test_cpu_rule.py, run by a helper process forked at
# import time. The helper is never reaped, so its CPU time never reaches the judged
# process's cutime/cstime in /proc/<pid>/stat, the count the local launcher reads.
QUADRATIC_IN_A_HELPER = """\
import os

_requests_r, _requests_w = os.pipe()
_answers_r, _answers_w = os.pipe()
if os.fork() == 0:
    while True:
        line = os.read(_requests_r, 64)
        if not line:
            os._exit(0)
        n = int(line)
        acc = 0
        for i in range(n):
            prefix = 0
            for j in range(i + 1):  # the whole prefix, again, for every new item
                prefix += j
            acc = prefix
        os.write(_answers_w, str(acc).encode() + b"\\n")


def total(n):
    os.write(_requests_w, str(n).encode() + b"\\n")
    return int(os.read(_answers_r, 64))
"""


# Issue 20, section 4: a helper the kernel reaps by itself (SIGCHLD ignored) leaves nothing
# in any walk over the job's processes: forked for each case, it does the quadratic work
# and is gone before the next CPU reading.
SELF_REAPED_HELPER = """\
import os
import signal

signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def total(n):
    r, w = os.pipe()
    if os.fork() == 0:
        acc = 0
        for i in range(n):
            prefix = 0
            for j in range(i + 1):
                prefix += j
            acc = prefix
        os.write(w, str(acc).encode())
        os._exit(0)
    os.close(w)
    return int(os.read(r, 64))
"""


def _problem(make_problem: MakeProblem) -> ProblemSpec:
    folder = make_problem(files={"cases.py": CASES, "reference.py": LINEAR}, slug="work", toml=TOML)
    return load_problem(folder)


def test_a_forked_helper_cannot_hide_the_quadratic_work_from_the_local_cpu_count(
    make_problem: MakeProblem,
) -> None:
    """The local launcher counts the child's session by walking /proc: under a CPU rule the
    child may start no process at all, so a helper cannot even be forked."""
    report = judge_source(_problem(make_problem), QUADRATIC_IN_A_HELPER)
    assert report.environment["cpu_rule"] == (
        "enforced: CPU time counted by the child's session, walked in /proc; new processes refused"
    )
    assert report.verdict is Verdict.RE, [(c.name, c.verdict, c.message) for c in report.cases]
    assert report.compile_error is not None
    assert "PermissionError" in str(report.compile_error["message"])


def test_a_self_reaped_helper_per_case_is_refused_locally(make_problem: MakeProblem) -> None:
    """Issue 20: with SIGCHLD ignored, 3 s of a helper's CPU showed as 0.02 s in the walk."""
    report = judge_source(_problem(make_problem), SELF_REAPED_HELPER)
    assert report.verdict is Verdict.RE, [(c.name, c.verdict, c.message) for c in report.cases]
    assert "Operation not permitted" in report.cases[0].message


def test_threads_still_run_under_the_cpu_rule(make_problem: MakeProblem) -> None:
    """Only processes are refused: a submission that uses a thread is judged as usual."""
    threaded = LINEAR.replace(
        "def total(n):",
        "import threading\n\n\ndef _sum(n, out):\n    out.append(sum(range(n)))\n\n\n"
        "def total(n):\n    out = []\n    t = threading.Thread(target=_sum, args=(n, out))\n"
        "    t.start()\n    t.join()\n    return out[0]\n\n\ndef _unused(n):",
    )
    report = judge_source(_problem(make_problem), threaded)
    assert report.verdict is Verdict.AC, [(c.name, c.verdict, c.message) for c in report.cases]
