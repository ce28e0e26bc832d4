"""A speed problem's hidden timed inputs, read back from one submission's reported times,
never recur in the next (web.judging.jobs.judge_seed_for).

The rule was once a seed per judged attempt for speed problems only, and the server's one
secret seed for every other problem; issue 20 showed that the shared seed let hidden inputs
be read out over many submissions on any problem, and a seed per attempt made a rejudge
meet new inputs. Now every submission carries a seed drawn when its row is created
(web.store.models.draw_hidden_seed), which its rejudges reuse; only rows from before that (a NULL
seed) keep the old derivation, so their rejudges do not change. The times a report shows
of a hidden case are now rounded up to a tenth of the limit (500 ms steps here), so the
speller below sleeps 500 ms per unit to be read back.
"""

from __future__ import annotations

from problem_factory import MakeProblem

from judge.problem.cases import build_cases
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from web.judging.jobs import judge_seed_for
from web.store.models import draw_hidden_seed

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
time_per_case_s = 5.0
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
# Answers every case right, after sleeping 500 ms per unit of a hidden input, less 450 ms:
# the time the report shows of each hidden case (500 ms steps, rounded up) spells out that
# input. A sleep is never shorter than asked, so the read-back tolerates 450 ms of delay per
# case (a loaded machine's: with 200 ms steps, a CI run beside two busy loops once came back
# one step late).
TIME_SPELLER = """\
import time


def total(a, n):
    if n > 1000:
        time.sleep(0.5 * a - 0.45)
    return a * n
"""


def _read_back(report, problem, seed):  # type: ignore[no-untyped-def]
    secret = {c.name: c.args[0] for c in build_cases(problem, seed) if c.timed is not None}
    got = {c.name: int(c.time_ms // 500.0) for c in report.cases if c.name in secret}
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
    first, second = draw_hidden_seed(), draw_hidden_seed()  # two submissions' rows
    assert first != second
    report = judge_source(problem, TIME_SPELLER, seed=first)
    assert report.verdict is Verdict.AC
    secret_first, learned = _read_back(report, problem, first)
    assert learned == secret_first  # the channel is real, if slow: the times spell the inputs
    secret_second, _ = _read_back(report, problem, second)
    assert learned != secret_second  # ... and what they spell is of no use next time


def test_every_problem_judges_a_row_on_its_stored_seed_whatever_the_attempt(
    make_problem: MakeProblem,
) -> None:
    """A rejudge (a later attempt) of a row meets its cases again, on a speed problem too."""
    speedy = load_problem(
        make_problem(
            files={"cases.py": SPEED_CASES, "reference.py": SPEED_REFERENCE},
            slug="speedy",
            toml=SPEED_TOML,
        )
    )
    plain = load_problem(make_problem())
    for problem in (speedy, plain):
        seeds = {judge_seed_for(SECRET, problem, 1, n, stored=77) for n in (1, 2, 3)}
        assert seeds == {77}


def test_a_row_from_before_the_stored_seed_keeps_the_seed_it_had(
    make_problem: MakeProblem,
) -> None:
    """NULL seeds: the server's secret for most problems, a seed per attempt for a speed
    problem, exactly as before, so a rejudge of an old row does not change what it meets."""
    plain = load_problem(make_problem())
    assert judge_seed_for(SECRET, plain, 1, 1, stored=None) == SECRET
    assert judge_seed_for(SECRET, plain, 9, 3, stored=None) == SECRET
    speedy = load_problem(
        make_problem(
            files={"cases.py": SPEED_CASES, "reference.py": SPEED_REFERENCE},
            slug="speedy",
            toml=SPEED_TOML,
        )
    )
    old = [judge_seed_for(SECRET, speedy, 1, 1, stored=None)]
    old += [judge_seed_for(SECRET, speedy, 2, 1, stored=None)]
    old += [judge_seed_for(SECRET, speedy, 1, 2, stored=None)]
    assert len({*old, SECRET}) == 4
    assert old[0] == 0x5CF4631337429433  # the derivation of before, pinned
