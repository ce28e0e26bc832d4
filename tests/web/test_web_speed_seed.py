"""A speed problem's hidden timed inputs, read back from one submission's reported times
(a hidden case's verdict and time are shown), never recur: every judged attempt of a
speed problem gets a seed of its own (web.jobs.judge_seed_for); other problems keep the
server's one secret seed, so their expected answers stay cached."""

from __future__ import annotations

from problem_factory import MakeProblem

from judge.cases import build_cases
from judge.judging import judge_source
from judge.spec import load_problem
from judge.verdict import Verdict
from web.jobs import judge_seed_for

SECRET = 0x5EC2E7

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
# Answers every case right, after sleeping 100 ms per unit of a hidden input: the time the
# report shows for each hidden case spells out that input. A sleep is never shorter than
# asked, so reading the time back rounding down tolerates up to 100 ms of delay per case
# (a loaded machine's), where rounding 40 ms units to the nearest allowed only 20.
TIME_SPELLER = """\
import time


def total(a, n):
    if n > 1000:
        time.sleep(0.1 * a)
    return a * n
"""


def _read_back(report, problem, seed):  # type: ignore[no-untyped-def]
    secret = {c.name: c.args[0] for c in build_cases(problem, seed) if c.timed is not None}
    got = {c.name: int(c.time_ms // 100.0) for c in report.cases if c.name in secret}
    return secret, got


def test_inputs_spelled_out_by_one_submissions_times_do_not_recur_in_the_next(
    make_problem: MakeProblem,
) -> None:
    folder = make_problem(
        files={"cases.py": SPEED_CASES, "reference.py": SPEED_REFERENCE},
        slug="speedy",
        toml=SPEED_TOML,
    )
    problem = load_problem(folder)
    first = judge_seed_for(SECRET, problem, submission_id=1, attempt=1)
    second = judge_seed_for(SECRET, problem, submission_id=2, attempt=1)
    assert len({first, second, judge_seed_for(SECRET, problem, 1, 2), SECRET}) == 4
    report = judge_source(problem, TIME_SPELLER, seed=first)
    assert report.verdict is Verdict.AC
    secret_first, learned = _read_back(report, problem, first)
    assert learned == secret_first  # the channel is real: the times spell the inputs out
    secret_second, _ = _read_back(report, problem, second)
    assert learned != secret_second  # ... and what they spell is of no use next time


def test_a_problem_without_speed_keeps_the_servers_secret_seed(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    assert judge_seed_for(SECRET, problem, 1, 1) == judge_seed_for(SECRET, problem, 9, 3) == SECRET
