"""A speed problem's score comes from the parent's clock on checked repetitions only."""

from __future__ import annotations

import pytest
from problem_factory import MakeProblem

from judge.errors import SpecError
from judge.grading.report import Report
from judge.problem.spec import ProblemSpec, load_problem
from judge.problem.speed_spec import SpeedResult, quartiles
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

TOML = """\
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
{speed}
"""
SPEED = '[speed]\nunit = "items/s"'
CASES = """\
def public_cases():
    return [{"name": "check", "args": [3, 4]}]


def generated_cases(rng):
    cases = [{"name": "warm-up", "args": [rng.randint(1, 9), 5], "warm_up": True}]
    for i in range(5):
        n = 20000 + rng.randint(0, 99)
        cases.append(
            {"name": f"timed-{i}", "args": [rng.randint(1, 9), n],
             "timed": {"work": n, "min_bytes": 1}}
        )
    return cases


def run(sub, args):
    return sub.total(*args)
"""
HONEST = """\
def total(a, n):
    acc = 0
    for i in range(n):
        acc += a
    return acc
"""
# Sleeps 50 ms per call and patches every clock it can reach to say no time passed.
CLOCK_PATCHER = """\
import time

_sleep = time.sleep
for name in ("perf_counter", "monotonic", "time", "process_time", "thread_time"):
    setattr(time, name, lambda: 0.0)
    setattr(time, name + "_ns", lambda: 0)


def total(a, n):
    _sleep(0.05)
    return a * n
"""
# Remembers the first timed answer and repeats it: fresh inputs make that wrong.
REPEATER = """\
_seen = []


def total(a, n):
    if n > 1000 and _seen:
        return _seen[0]
    if n > 1000:
        _seen.append(a * n)
    return a * n
"""


def _problem(make_problem: MakeProblem, speed: str = SPEED) -> ProblemSpec:
    folder = make_problem(
        files={"cases.py": CASES, "reference.py": HONEST},
        slug="speedy",
        toml=TOML.format(speed=speed),
    )
    return load_problem(folder)


def test_an_accepted_run_carries_its_median_rate_quartiles_and_hardware(
    make_problem: MakeProblem,
) -> None:
    report = judge_source(_problem(make_problem), HONEST)
    assert report.verdict is Verdict.AC
    speed = report.speed
    assert speed is not None and speed.unit == "items/s" and speed.repetitions == 5
    assert speed.q1 <= speed.median <= speed.q3 and speed.value == speed.median
    assert len(speed.samples) == 5 and speed.hardware["cpu"] and speed.hardware["threads"] == "1"
    timed = [c for c in report.cases if c.name.startswith("public-timed-")]
    assert all(c.message.endswith("items/s") for c in timed)
    again = Report.from_dict(report.to_dict()).speed
    assert again is not None and again.to_dict() == speed.to_dict()


def test_patching_the_clocks_inside_the_child_does_not_make_a_run_faster(
    make_problem: MakeProblem,
) -> None:
    report = judge_source(_problem(make_problem), CLOCK_PATCHER)
    assert report.verdict is Verdict.AC and report.speed is not None
    # Each repetition took at least its 50 ms sleep on the parent's clock.
    timed = [c for c in report.cases if c.name.startswith("public-timed-")]
    assert len(timed) == 5 and min(c.time_ms for c in timed) >= 50
    assert report.speed.relative is not None and report.speed.relative < 1


def test_answering_a_fresh_repetition_from_an_earlier_one_is_wrong_and_unscored(
    make_problem: MakeProblem,
) -> None:
    report = judge_source(_problem(make_problem), REPEATER)
    assert report.verdict is Verdict.WA and report.speed is None
    assert report.first_failure is not None and report.first_failure.name == "public-timed-1"


def test_a_repetition_faster_than_memory_allows_is_wa(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_MEMORY_BANDWIDTH_GBS", "1e-12")  # 1 ms per byte: nothing is honest
    report = judge_source(_problem(make_problem), HONEST)
    assert report.verdict is Verdict.WA and report.speed is None
    failure = report.first_failure
    assert failure is not None and failure.name == "public-timed-0"
    assert "faster than this machine's memory allows" in failure.message


def test_on_the_secret_seed_a_too_fast_repetition_says_why_but_not_its_figures(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20: a hidden case shows the judge's fixed sentence, here the one that tells an
    honest solution why its right answers were refused; the rate and the ceiling (its exact
    time) stay out, and the score is still computed from the exact times."""
    monkeypatch.setenv("JUDGE_MEMORY_BANDWIDTH_GBS", "1e-12")
    report = judge_source(_problem(make_problem), HONEST, seed=424242)
    failure = report.first_failure
    assert failure is not None and not failure.public and failure.verdict is Verdict.WA
    assert failure.text is not None and failure.text.key == "hidden.too_fast"
    assert "GB/s" not in failure.message and failure.time_ms % 1000.0 == 0
    monkeypatch.delenv("JUDGE_MEMORY_BANDWIDTH_GBS")
    scored = judge_source(_problem(make_problem), HONEST, seed=424242)
    assert scored.verdict is Verdict.AC and scored.speed is not None
    assert len(set(scored.speed.samples)) == 5  # exact rates, not tenths of the limit


def test_a_wrong_run_has_no_score(make_problem: MakeProblem) -> None:
    report = judge_source(_problem(make_problem), "def total(a, n):\n    return a * n + 1\n")
    assert report.verdict is Verdict.WA and report.speed is None
    assert "speed" not in report.to_dict()


def test_once_a_case_fails_the_repetitions_left_are_not_timed(make_problem: MakeProblem) -> None:
    """Issue 23, section 6: decode-throughput's starter, WA on both correctness cases, still
    ran the warm-up and nine timed repetitions (53 s) for a score it could not get. The first
    wrong answer (public-timed-1, for a repeater) is the last case run."""
    report = judge_source(_problem(make_problem), REPEATER)
    verdicts = {c.name: c.verdict for c in report.cases}
    assert verdicts["public-timed-1"] is Verdict.WA
    assert [verdicts[f"public-timed-{i}"] for i in range(2, 5)] == [None, None, None]
    skipped = next(c for c in report.cases if c.name == "public-timed-4").to_dict()
    assert skipped["message_key"] == "case.not_timed"
    wrong = judge_source(_problem(make_problem), "def total(a, n):\n    return a * n + 1\n")
    assert all(c.verdict is None for c in wrong.cases if c.name.startswith("public-timed-"))
    assert wrong.verdict is Verdict.WA


def test_once_a_case_fails_the_warm_up_is_left_out_too(make_problem: MakeProblem) -> None:
    """Issue 23, section 6: the warm-up exists only to be timed after; once the correctness
    case failed, decode-throughput still ran it. A case marked `warm_up` is left out like
    the timed repetitions, and says why."""
    wrong = judge_source(_problem(make_problem), "def total(a, n):\n    return a * n + 1\n")
    warm_up = next(c for c in wrong.cases if c.name.endswith("warm-up"))
    assert warm_up.verdict is None
    assert warm_up.to_dict()["message_key"] == "case.not_timed"
    honest = judge_source(_problem(make_problem), HONEST)
    assert next(c for c in honest.cases if c.name.endswith("warm-up")).verdict is Verdict.AC


def test_quartiles_interpolate_and_overlapping_ranges_are_not_told_apart() -> None:
    assert quartiles([4.0, 1.0, 3.0, 2.0, 5.0]) == (2.0, 3.0, 4.0)
    assert quartiles([1.0, 2.0]) == (1.25, 1.5, 1.75)
    a = SpeedResult("t/s", 10.0, 10.0, 9.0, 11.0, 5)
    b = SpeedResult("t/s", 12.0, 12.0, 10.5, 13.0, 5)
    c = SpeedResult("t/s", 20.0, 20.0, 19.0, 21.0, 5)
    assert a.overlaps(b) and b.overlaps(a) and not a.overlaps(c)


@pytest.mark.parametrize(
    ("speed", "cases", "message"),
    [
        ('[speed]\nunit = "items"', CASES, "speed.unit"),
        ('[speed]\nunit = "items/s"\nbest = "max"', CASES, "speed.best"),
        ("", CASES.replace(', "warm_up": True', ""), "is timed; problem.toml has no [speed]"),
        (SPEED, CASES.replace('"min_bytes": 1', '"min_bytes": 0'), "timed.min_bytes"),
        (SPEED, CASES.replace('"warm_up": True', '"warm_up": 1'), "warm_up must be"),
        (
            SPEED,
            CASES.replace(
                '"warm_up": True', '"warm_up": True, "timed": {"work": 1, "min_bytes": 1}'
            ),
            "warm_up is for",
        ),
        ("", CASES.replace('"timed": {', '"x": {'), "warm_up is for"),
    ],
)
def test_a_malformed_speed_problem_is_a_spec_error(
    make_problem: MakeProblem, speed: str, cases: str, message: str
) -> None:
    folder = make_problem(
        files={"cases.py": cases, "reference.py": HONEST},
        slug="speedy",
        toml=TOML.format(speed=speed),
    )
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        from judge.problem.cases import build_cases

        build_cases(load_problem(folder), None)


def test_a_ceiling_measured_on_a_busy_machine_is_measured_again_before_refusing(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: the ceiling is measured once per process, and a copy measured while the
    machine was busy is slow; an honest fast run judged later, on a quiet machine, must not
    be refused for it. The copy is measured again before anything is refused, and the
    fastest figure is kept."""
    from judge.problem import speed_spec

    copies = iter([1e-3, 1e15])  # busy at first (a ceiling no run meets), then quiet
    monkeypatch.setattr(speed_spec, "measure_copy_bandwidth", lambda: next(copies))
    monkeypatch.setattr(speed_spec, "_measured", {})
    report = judge_source(_problem(make_problem), HONEST)
    assert report.verdict is Verdict.AC and report.speed is not None
    assert speed_spec.bandwidth_ceiling() == speed_spec.CEILING_MARGIN * 1e15  # kept
