"""Red-team pass on the torch tier: the CPU-time rule in the sandbox against work hidden in
helper processes (the synthetic problem of tests/judge/test_torch_tier_attacks.py).

With job cgroups the kernel counts every process the job ever ran; without them (a runner
not started as root) the count walks the job's pid namespace, which cannot see a helper
the kernel reaped by itself. Under a CPU rule a job may start no process at all (threads
only), with or without cgroups, so neither kind of helper can start.
"""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.grading.report import Report
from judge.problem.spec import ProblemSpec, load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.cgroups import CgroupSupport, detect
from runner.launchers.sandbox import SandboxLauncher

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


def _judge(problem: ProblemSpec, source: str, cgroups: bool) -> Report:
    launcher = SandboxLauncher(pool_size=1, preload=())
    if not cgroups:
        launcher.cgroups = CgroupSupport(0, (), "off for this test (a runner not run as root)")
    try:
        return judge_source(problem, source, launcher=launcher)
    finally:
        launcher.close()


@pytest.mark.skipif(detect().version == 0, reason="needs job cgroups (root)")
def test_with_job_cgroups_a_helper_cannot_start_and_the_report_names_the_count(
    make_problem: MakeProblem,
) -> None:
    report = _judge(_problem(make_problem), QUADRATIC_IN_A_HELPER, cgroups=True)
    assert report.verdict is Verdict.RE, [(c.name, c.verdict, c.message) for c in report.cases]
    assert report.environment["cpu_rule"].startswith(
        "enforced: CPU time counted by the job's cgroup"
    )


@pytest.mark.parametrize(
    "source", [QUADRATIC_IN_A_HELPER, SELF_REAPED_HELPER], ids=["kept", "self-reaped"]
)
def test_without_job_cgroups_no_helper_can_start_to_hide_its_cpu_time(
    make_problem: MakeProblem, source: str
) -> None:
    """Issue 20, section 4: a self-reaped helper was 0.02 s counted of 3 s burnt here."""
    report = _judge(_problem(make_problem), source, cgroups=False)
    assert report.environment["cpu_rule"] == (
        "enforced: CPU time counted by the job's pid namespace, walked in /proc; "
        "new processes refused"
    )
    assert report.verdict is Verdict.RE, [(c.name, c.verdict, c.message) for c in report.cases]
