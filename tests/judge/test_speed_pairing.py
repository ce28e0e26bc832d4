"""A speed score is the submission's time paired with the reference's, timed in turn with it.

Load slows both alike, so their ratio, said at the reference's best measured rate, means the
same on a busy machine as on an idle one; a run whose ratios spread too widely is not scored,
and the submission cannot run while the reference is being timed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import PACED_WATCHER, SLOW_REFERENCE, write_paced_problem

from judge.commands.render import speed_line
from judge.grading.report import Report
from judge.problem.spec import ProblemSpec, load_problem
from judge.problem.speed_spec import (
    MAX_RELATIVE_SPREAD,
    SpeedResult,
    SpeedSpec,
    SpeedState,
    check_spread_limit,
    paired_score,
    reference_pace,
)
from judge.run.judge_source import judge_source
from judge.verdict import Verdict


def _problem(tmp_path: Path) -> ProblemSpec:
    return load_problem(write_paced_problem(tmp_path / "problems"))


def test_the_score_is_the_median_ratio_to_the_reference_said_at_its_rate() -> None:
    spec = SpeedSpec("tokens/s")
    speed = paired_score(spec, [0.9, 1.0, 1.0, 1.1, 1.0], 500.0, {"cpu": "test"})
    assert speed.state is SpeedState.SCORED
    assert speed.relative == 1.0 and speed.value == 500.0 and speed.reference_rate == 500.0
    assert speed.q1 == 500.0 and speed.q3 == 500.0 and len(speed.samples) == 5
    again = SpeedResult.from_dict(speed.to_dict())
    assert again == speed


def test_ratios_that_spread_too_widely_are_not_scored() -> None:
    ratios = [0.5, 0.8, 1.0, 1.3, 2.0]  # IQR / median = 0.5
    speed = paired_score(SpeedSpec("tokens/s"), ratios, 500.0, {})
    assert speed.relative_spread is not None and speed.relative_spread > MAX_RELATIVE_SPREAD
    assert speed.state is SpeedState.UNSTEADY
    assert SpeedResult.from_dict(speed.to_dict()).state is SpeedState.UNSTEADY


def test_a_platforms_own_spread_limit_decides_and_is_the_one_its_message_cites() -> None:
    ratios = [0.8, 0.9, 1.0, 1.2, 1.3]  # IQR / median = 0.3: past the judge's own limit
    spec = SpeedSpec("tokens/s")
    assert paired_score(spec, ratios, 500.0, {}).state is SpeedState.UNSTEADY
    loose = paired_score(spec, ratios, 500.0, {}, spread_limit=0.5)
    assert (loose.state, loose.spread_limit) == (SpeedState.SCORED, 0.5)
    tight = paired_score(spec, ratios, 500.0, {}, spread_limit=0.1)
    assert tight.state is SpeedState.UNSTEADY
    assert SpeedResult.from_dict(tight.to_dict()).spread_limit == 0.1
    assert "10%" in speed_line(tight) and "30%" in speed_line(tight)


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, float("nan"), float("inf")])
def test_a_spread_limit_outside_zero_to_one_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match=r"a fraction in \(0, 1\]"):
        check_spread_limit(bad)


def test_the_reference_rate_a_score_is_said_in_is_the_highest_measured_so_far() -> None:
    key = ("pace-test", "v1", "local", "cpu")
    assert reference_pace(key, 300.0) == 300.0  # measured on a busy machine first
    assert reference_pace(key, 500.0) == 500.0
    assert reference_pace(key, 250.0) == 500.0  # a busier moment does not lower it
    assert reference_pace(("pace-test", "v2", "local", "cpu"), 100.0) == 100.0


def test_a_speed_run_is_paired_with_the_reference_on_every_timed_case(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    report = judge_source(problem, SLOW_REFERENCE)
    assert report.verdict is Verdict.AC, report.to_dict()
    speed = report.speed
    assert speed is not None and speed.repetitions == 4
    assert speed.relative is not None and 0.3 < speed.relative < 3  # the same code, in turn
    assert speed.reference_rate is not None and speed.reference_rate < 1099 / 0.3
    stored = Report.from_dict(report.to_dict()).speed
    assert stored is not None and stored.relative == pytest.approx(speed.relative, abs=1e-6)
    assert speed.spread_limit == MAX_RELATIVE_SPREAD  # no setting given: the judge's own


def test_a_judgings_spread_limit_reaches_its_score(tmp_path: Path) -> None:
    report = judge_source(_problem(tmp_path), SLOW_REFERENCE, spread_limit=0.9)
    assert report.speed is not None and report.speed.spread_limit == 0.9, report.to_dict()


def test_the_submission_cannot_run_while_the_reference_is_timed(tmp_path: Path) -> None:
    """Stopped, a thread of the submission's cannot take the CPU from the reference on a busy
    machine (making its own ratio look better): it sees a gap as long as the reference's run
    just before every timed case."""
    report = judge_source(_problem(tmp_path), PACED_WATCHER)
    assert report.verdict is Verdict.AC, report.to_dict()
    said = [float(line.split()[1]) for line in report.stdout.splitlines()]
    assert len(said) == 6, report.stdout  # check, warm-up, then the four timed cases
    assert min(said[2:]) >= 0.25, said
