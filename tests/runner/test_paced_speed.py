"""In the sandbox, a speed problem's submission is stopped while its reference is timed."""

from __future__ import annotations

from pathlib import Path

from conftest import Harness
from problem_factory import PACED_WATCHER, write_paced_problem

from judge.problem.spec import load_problem
from judge.verdict import Verdict


def test_a_sandboxed_submission_cannot_run_while_the_reference_is_timed(
    harness: Harness, tmp_path: Path
) -> None:
    problem = load_problem(write_paced_problem(tmp_path / "problems"))
    report = harness.judge(PACED_WATCHER, problem)
    assert report.verdict is Verdict.AC, report.to_dict()
    said = [float(line.split()[1]) for line in report.stdout.splitlines()]
    assert len(said) == 6, report.stdout  # check, warm-up, then the four timed cases
    assert min(said[2:]) >= 0.25, said
    assert report.speed is not None and report.speed.relative is not None
