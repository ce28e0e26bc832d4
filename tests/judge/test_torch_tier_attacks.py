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


SPEED_TOML = """\
slug = "speedy"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "速度"
en = "Speed"

[limits]
time_per_case_s = 10.0
total_time_s = 60.0
memory_mb = 128

[submission]
names = ["total"]

[checker]
kind = "value"

[speed]
unit = "items/s"
"""
SPEED_CASES = """\
def public_cases():
    return [{"name": "check", "args": [3, 4]}]


def generated_cases(rng):
    cases = [{"name": "warm-up", "args": [rng.randint(1, 9), 5]}]
    for i in range(5):
        n = 2000 + rng.randint(0, 99)
        cases.append(
            {"name": f"timed-{i}", "args": [rng.randint(1, 9), n],
             "timed": {"work": n, "min_bytes": 1}}
        )
    return cases


def run(sub, args):
    return sub.total(*args)
"""
SPEED_REFERENCE = """\
def total(a, n):
    return a * n
"""
# Answers every case right, after sleeping 40 ms per unit of a hidden input: the time the
# report shows for each hidden case spells out that input.
TIME_SPELLER = """\
import time


def total(a, n):
    if n > 1000:
        time.sleep(0.04 * a)
    return a * n
"""


def test_a_speed_problems_hidden_inputs_cannot_be_read_back_from_its_reported_times(
    make_problem: MakeProblem,
) -> None:
    """The server judges every submission on one secret seed, so a speed problem's timed
    inputs are the same for every submission. A hidden case's time is reported to 0.1 ms,
    which carries about 13 bits per case: enough, over a few dozen submissions, to learn all
    the timed inputs, after which a table of answers (sleeping just under the bandwidth
    ceiling) scores ~30x an honest decode-throughput solution."""
    from judge.cases import build_cases

    folder = make_problem(
        files={"cases.py": SPEED_CASES, "reference.py": SPEED_REFERENCE},
        slug="speedy",
        toml=SPEED_TOML,
    )
    problem = load_problem(folder)
    seed = 4242  # stands for the server's secret seed
    report = judge_source(problem, TIME_SPELLER, seed=seed)
    assert report.verdict is Verdict.AC
    secret = {c.name: c.args[0] for c in build_cases(problem, seed) if c.timed is not None}
    read_back = {
        c.name: round(c.time_ms / 40.0) for c in report.cases if not c.public and c.name in secret
    }
    assert read_back != secret, (
        f"every hidden timed input read back from the report's times: {read_back}"
    )
