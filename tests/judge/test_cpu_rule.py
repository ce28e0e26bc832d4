"""The calibrated CPU-time rule: a case may use at most F x the reference's CPU time + S,
both counted by the kernel from outside the child (judge/run/calibration.py)."""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.commands.render import print_report
from judge.errors import SpecError
from judge.problem.device import Device
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
# The reference's loop takes a few milliseconds; the local count is the kernel's, in 10 ms
# ticks, and beside busy processes the same loop has been charged 5 ticks more than while
# calibrating: the slack is wide beside it. QUADRATIC, 0.7 s of CPU, is far past it still.
RULE = "cpu_vs_reference = 2.0\ncpu_slack_s = 0.15"

# The reference sums n numbers once; the "quadratic" one re-sums the prefix for every item,
# as a generation loop that recomputes the whole sequence at every step does.
CASES = """\
def public_cases():
    return [
        {"name": "small", "args": 50},
        {"name": "long", "args": 8000, "calibrated": True},
    ]


def generated_cases(rng):
    return [{"name": "hidden-long", "args": 8000 + rng.randint(0, 10), "calibrated": True}]


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
    assert [c.verdict for c in report.cases][:1] == [Verdict.AC]  # the small case passed


def test_a_tle_on_the_cpu_rule_says_where_the_job_was_stopped_and_the_references_figure(
    make_problem: MakeProblem,
) -> None:
    """Before, "used 2.40 s of CPU; this case allows 2.37 s" read like a near miss, when
    2.40 s was only where the judge stopped the job."""
    report = judge_source(_problem(make_problem), QUADRATIC)
    failure = report.first_failure
    assert failure is not None and failure.text is not None
    allowed, reference = _figures(failure.text.args_dict())
    assert float(allowed) == pytest.approx(2.0 * float(reference) + 0.15, abs=0.01)
    assert failure.message == (
        f"stopped at {allowed} s of CPU time, this case's allowance; the reference used "
        f"{reference} s (the allowance is 2 x that + 0.15 s)"
    )
    assert failure.text.render("zh") == (
        f"CPU 时间到 {allowed} 秒（本用例的上限）时被终止；参考解用了 {reference} 秒"
        "（上限是它的 2 倍 + 0.15 秒）"
    )
    assert "used" not in failure.text.args_dict()


def _figures(args: dict[str, object]) -> tuple[str, str]:
    allowed, reference = args["allowed"], args["reference"]
    assert isinstance(allowed, str) and isinstance(reference, str)
    return allowed, reference


def test_a_passing_calibrated_case_shows_the_cpu_it_used_of_its_allowance(
    make_problem: MakeProblem,
) -> None:
    report = judge_source(_problem(make_problem), LINEAR)
    small, long = report.cases[:2]
    assert small.verdict is long.verdict is Verdict.AC
    assert small.message == ""  # not calibrated: no allowance to measure against
    assert long.text is not None and long.text.key == "case.cpu_within"
    args = long.text.args_dict()
    used, (allowed, reference) = args["used"], _figures(args)
    assert isinstance(used, str) and float(used) <= float(allowed)
    assert long.message == (
        f"{used} s of CPU time of the {allowed} s allowed (the reference used {reference} s)"
    )
    assert long.text.render("zh") == (
        f"用了 {used} 秒 CPU 时间，本用例允许 {allowed} 秒（参考解用了 {reference} 秒）"
    )


def test_a_passing_hidden_calibrated_case_shows_no_cpu_figures(make_problem: MakeProblem) -> None:
    report = judge_source(_problem(make_problem), LINEAR, seed=99)
    hidden = next(c for c in report.cases if c.name.endswith("hidden-long"))
    assert hidden.verdict is Verdict.AC and hidden.message == "" and hidden.text is None


def test_judge_run_prints_a_passing_calibrated_cases_cpu_beside_it(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the message on one line, whatever the terminal
    problem = _problem(make_problem)
    report = judge_source(problem, LINEAR)
    print_report(report, problem, "en")
    row = next(line for line in capsys.readouterr().out.splitlines() if " long " in line)
    assert "s of CPU time of the" in row and "s allowed (the reference used" in row
    print_report(report, problem, "zh")
    row = next(line for line in capsys.readouterr().out.splitlines() if " long " in line)
    assert "秒 CPU 时间，本用例允许" in row


def test_a_hidden_calibrated_case_gives_no_figures_away(make_problem: MakeProblem) -> None:
    hidden_only = CASES.replace('"calibrated": True},\n    ]', "},\n    ]")
    report = judge_source(_problem(make_problem, cases=hidden_only), QUADRATIC, seed=99)
    failure = report.first_failure
    # Once seen with no failure at all on a loaded machine (not reproduced since): the
    # report then says why.
    assert failure is not None, report.to_dict(admin=True)
    assert failure.name == "hidden-long" and not failure.public
    assert failure.verdict is Verdict.TLE
    assert not any(ch.isdigit() for ch in failure.message), failure.message


def test_the_rule_counts_cpu_time_not_the_wall_clock(make_problem: MakeProblem) -> None:
    report = judge_source(_problem(make_problem), SLEEPY)
    assert report.verdict is Verdict.AC, [c.message for c in report.cases]


class _NoCpuClock(LocalProcess):
    def cpu_seconds(self) -> float | None:
        return None


class _NoCpuLauncher(LocalLauncher):
    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> LocalProcess:
        return _NoCpuClock(problem, limits, self._workdir, self._user, device)


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
