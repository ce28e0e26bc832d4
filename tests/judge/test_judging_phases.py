"""Where a judging has got to (judge/run/phase.py): the judge says what runs now, so a
learner waiting on a torch judging reads "timed repetition 4 of 9", not "judging…"."""

from __future__ import annotations

from problem_factory import MakeProblem
from test_speed_problems import HONEST, _problem

from judge.problem.cases import Case
from judge.problem.checkers import CheckSpec
from judge.problem.speed_spec import Timed
from judge.run.judge_source import judge_source
from judge.run.phase import Phase, Stage
from judge.verdict import Verdict


def _case(name: str, *, timed: bool = False, warm_up: bool = False) -> Case:
    repetition = Timed(1.0, 1.0) if timed else None
    return Case(name, {}, CheckSpec(), public=True, timed=repetition, warm_up=warm_up)


def test_each_case_is_counted_within_its_kind() -> None:
    cases = [_case("a"), _case("b"), _case("w", warm_up=True)]
    cases += [_case(f"t{i}", timed=True) for i in range(3)]
    phases = [Phase.next_of(cases, done) for done in range(len(cases) + 1)]
    said = [(p.stage, p.step, p.of) for p in phases]
    assert said == [
        (Stage.CASE, 1, 2),
        (Stage.CASE, 2, 2),
        (Stage.WARM_UP, 1, 1),
        (Stage.TIMED, 1, 3),
        (Stage.TIMED, 2, 3),
        (Stage.TIMED, 3, 3),
        (Stage.REPORTING, 0, 0),
    ]
    assert [p.done for p in phases] == list(range(7)) and {p.total for p in phases} == {6}


def test_a_phase_is_said_in_both_languages() -> None:
    timed = Phase(Stage.TIMED, 5, 12, 4, 9)
    assert timed.said().en == "timed repetition 4 of 9"
    assert timed.said().render("zh") == "第 4/9 次计时重复"
    assert Phase(Stage.PREPARING, 0, 12).said().render("zh").startswith("正在准备隐藏用例")
    assert timed.to_dict() == {"stage": "timed", "done": 5, "total": 12, "step": 4, "of": 9}


def test_a_speed_judging_goes_from_its_cases_to_its_timed_repetitions(
    make_problem: MakeProblem,
) -> None:
    seen: list[Phase] = []
    report = judge_source(_problem(make_problem), HONEST, progress=seen.append)
    assert report.verdict is Verdict.AC
    stages = [p.stage for p in seen]
    # The reference answers the cases first (nothing was cached), then each case in turn.
    assert stages[0] is Stage.PREPARING and stages[-1] is Stage.REPORTING
    assert Stage.CASE in stages and Stage.TIMED in stages
    assert stages.index(Stage.CASE) < stages.index(Stage.TIMED)
    timed = [p for p in seen if p.stage is Stage.TIMED]
    assert [p.step for p in timed] == list(range(1, timed[0].of + 1))
    dones = [p.done for p in seen[1:]]
    assert dones == sorted(dones) and dones[-1] == seen[-1].total
