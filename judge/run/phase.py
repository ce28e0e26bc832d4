"""Where a judging has got to, for the learner who waits: preparing the cases, measuring
the reference, "case 3 of 12", "timed repetition 4 of 9" (issue 21: a torch judging takes
tens of seconds, and "judging…" alone says nothing about how long is left)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from judge.messages import Message, say
from judge.problem.cases import Case
from judge.record import record


class Stage(StrEnum):
    PREPARING = "preparing"  # the reference answers this seed's cases, before any runs
    CALIBRATING = "calibrating"  # the reference's CPU time measured (CPU-rule problems)
    CASE = "case"  # a correctness case runs
    WARM_UP = "warm_up"  # the untimed run before the timed repetitions
    TIMED = "timed"  # a timed repetition runs
    REPORTING = "reporting"  # every case has run; the report is being written


@record
class Phase:
    """`done` of `total` cases have run; within `stage`, number `step` of `of` runs now
    (0 of 0 where the stage has no steps)."""

    stage: Stage
    done: int
    total: int
    step: int = 0
    of: int = 0

    def said(self) -> Message:
        """The phase in words ("timed repetition 4 of 9")."""
        return say(f"phase.{self.stage.value}", step=self.step, of=self.of)

    def to_dict(self) -> dict[str, object]:
        """JSON data: what the platform stores and its page shows."""
        return {
            "stage": self.stage.value,
            "done": self.done,
            "total": self.total,
            "step": self.step,
            "of": self.of,
        }

    @classmethod
    def before(cls, stage: Stage, cases: list[Case]) -> Phase:
        return cls(stage, 0, len(cases))

    @classmethod
    def next_of(cls, cases: list[Case], done: int) -> Phase:
        """What runs once `done` cases have: the next case, counted within its kind."""
        if done >= len(cases):
            return cls(Stage.REPORTING, done, len(cases))
        upcoming = cases[done]
        stage = _stage_of(upcoming)
        same = [c for c in cases if _stage_of(c) is stage]
        step = sum(1 for c in cases[: done + 1] if _stage_of(c) is stage)
        return cls(stage, done, len(cases), step, len(same))


def _stage_of(case: Case) -> Stage:
    if case.timed is not None:
        return Stage.TIMED
    return Stage.WARM_UP if case.warm_up else Stage.CASE


Progress = Callable[[Phase], None]
