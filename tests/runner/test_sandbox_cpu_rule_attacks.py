"""Red-team pass on the torch tier: the CPU-time rule in the sandbox against work hidden in
helper processes (the synthetic problem of tests/judge/test_torch_tier_attacks.py).

With job cgroups the kernel counts every process the job ever ran, so the helper is caught;
without them (a runner not started as root) the count falls back to the job's pid 1 in
/proc, which misses children it has not reaped, and the rule is evaded while reports
still say it is enforced.
"""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.judging import judge_source
from judge.report import Report
from judge.spec import ProblemSpec, load_problem
from judge.verdict import Verdict
from runner.cgroups import CgroupSupport, detect
from runner.launcher import SandboxLauncher

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
def test_a_forked_helpers_work_is_counted_by_the_jobs_cgroup(make_problem: MakeProblem) -> None:
    report = _judge(_problem(make_problem), QUADRATIC_IN_A_HELPER, cgroups=True)
    assert report.verdict is Verdict.TLE, [(c.name, c.verdict, c.message) for c in report.cases]


def test_without_job_cgroups_a_forked_helper_cannot_hide_its_cpu_time(
    make_problem: MakeProblem,
) -> None:
    report = _judge(_problem(make_problem), QUADRATIC_IN_A_HELPER, cgroups=False)
    if report.environment.get("cpu_rule") != "enforced":
        return  # saying the rule is not enforced here would be honest too
    assert report.verdict is Verdict.TLE, (
        "the report says the CPU rule is enforced, yet a helper's quadratic work went "
        f"uncounted: {[(c.name, c.verdict, c.message) for c in report.cases]}"
    )
