"""The calibrated CPU-time rule: a case may use at most F x the reference's CPU time + S,
both counted by the kernel from outside the child (judge/run/calibration.py)."""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.errors import SpecError
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec, load_problem
from judge.run.judge_source import judge_source
from judge.run.launch import LocalLauncher, LocalProcess
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
{rule}

[submission]
names = ["total"]

[checker]
kind = "value"
"""
RULE = "cpu_vs_reference = 2.0\ncpu_slack_s = 0.05"

# The reference sums n numbers once; the "quadratic" one re-sums the prefix for every item,
# as a generation loop that recomputes the whole sequence at every step does.
CASES = """\
def public_cases():
    return [
        {"name": "small", "args": 50},
        {"name": "long", "args": 3000, "calibrated": True},
    ]


def generated_cases(rng):
    return [{"name": "hidden-long", "args": 3000 + rng.randint(0, 10), "calibrated": True}]


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
QUADRATIC = """\
def total(n):
    acc = 0
    for i in range(n):
        prefix = 0
        for j in range(i + 1):  # the whole prefix, again, for every new item
            prefix += j
        acc = prefix
    return acc
"""
SLEEPY = """\
import time


def total(n):
    time.sleep(0.3)  # wall time, not CPU time: the rule counts the CPU
    return n * (n - 1) // 2
"""


def _problem(make_problem: MakeProblem, rule: str = RULE, cases: str = CASES) -> ProblemSpec:
    folder = make_problem(
        files={"cases.py": cases, "reference.py": LINEAR}, slug="work", toml=TOML.format(rule=rule)
    )
    return load_problem(folder)


def test_the_reference_is_accepted_under_its_own_calibration(make_problem: MakeProblem) -> None:
    report = judge_source(_problem(make_problem), LINEAR)
    assert report.verdict is Verdict.AC, report.to_dict()
    assert report.environment["cpu_rule"].startswith("enforced: CPU time counted by")


def test_recomputing_the_prefix_is_tle_on_the_first_calibrated_case(
    make_problem: MakeProblem,
) -> None:
    report = judge_source(_problem(make_problem), QUADRATIC)
    assert report.verdict is Verdict.TLE
    failure = report.first_failure
    assert failure is not None and failure.name == "long"
    assert "x the reference's" in failure.message and "of CPU time" in failure.message
    assert [c.verdict for c in report.cases][:1] == [Verdict.AC]  # the small case passed


def test_a_hidden_calibrated_case_gives_no_figures_away(make_problem: MakeProblem) -> None:
    hidden_only = CASES.replace('"calibrated": True},\n    ]', "},\n    ]")
    report = judge_source(_problem(make_problem, cases=hidden_only), QUADRATIC, seed=99)
    failure = report.first_failure
    assert failure is not None and failure.name == "hidden-long" and not failure.public
    assert failure.verdict is Verdict.TLE
    assert not any(ch.isdigit() for ch in failure.message), failure.message


def test_the_rule_counts_cpu_time_not_the_wall_clock(make_problem: MakeProblem) -> None:
    report = judge_source(_problem(make_problem), SLEEPY)
    assert report.verdict is Verdict.AC, [c.message for c in report.cases]


class _NoCpuClock(LocalProcess):
    def cpu_seconds(self) -> float | None:
        return None


class _NoCpuLauncher(LocalLauncher):
    def launch(self, problem: ProblemSpec, limits: Limits) -> LocalProcess:
        return _NoCpuClock(problem, limits, self._workdir, self._user)


def test_where_no_cpu_count_exists_the_rule_is_not_enforced_and_the_report_says_so(
    make_problem: MakeProblem, tmp_path
) -> None:
    launcher = _NoCpuLauncher(tmp_path)
    report = judge_source(_problem(make_problem), QUADRATIC, launcher=launcher)
    assert report.verdict is Verdict.AC
    assert report.environment["cpu_rule"].startswith("not enforced")


def test_a_calibrated_case_needs_the_problems_rule(make_problem: MakeProblem) -> None:
    problem = _problem(make_problem, rule="")
    report = judge_source(problem, LINEAR)
    assert report.verdict is Verdict.IE  # the problem is broken, not the submission
    assert "calibrated but problem.toml sets no cpu_vs_reference" in (report.internal_error or "")


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ("cpu_vs_reference = 2.0", "limits.cpu_slack_s"),
        ("cpu_slack_s = 0.5", "limits.cpu_vs_reference"),
        ("cpu_vs_reference = 1.0\ncpu_slack_s = 0.5", "limits.cpu_vs_reference"),
        ("cpu_vs_reference = 2.0\ncpu_slack_s = -1", "limits.cpu_slack_s"),
    ],
)
def test_a_half_or_out_of_range_rule_is_a_spec_error_naming_the_field(
    make_problem: MakeProblem, rule: str, field: str
) -> None:
    with pytest.raises(SpecError) as error:
        _problem(make_problem, rule=rule)
    assert error.value.field == field
