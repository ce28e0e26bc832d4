"""Red-team findings against the torch tier's CPU-time rule and speed scoring, as tests.

Each test is a hostile submission that the documented protection should stop; see the
report of the red-team pass that added this file.
"""

from __future__ import annotations

from problem_factory import MakeProblem

from judge.judging import judge_source
from judge.spec import ProblemSpec, load_problem
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


def _problem(make_problem: MakeProblem) -> ProblemSpec:
    folder = make_problem(files={"cases.py": CASES, "reference.py": LINEAR}, slug="work", toml=TOML)
    return load_problem(folder)


def test_a_forked_helper_cannot_hide_the_quadratic_work_from_the_local_cpu_count(
    make_problem: MakeProblem,
) -> None:
    """The local launcher says the rule is enforced, but counts only the child and the
    children it has reaped: work done in a live (or zombie) helper process is free."""
    report = judge_source(_problem(make_problem), QUADRATIC_IN_A_HELPER)
    assert report.environment["cpu_rule"] == "enforced"
    assert report.verdict is Verdict.TLE, (
        "a forked helper did quadratic work without it being counted: "
        f"{[(c.name, c.verdict, c.message) for c in report.cases]}"
    )
