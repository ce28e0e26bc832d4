"""The sandbox's runner in a child process of the server (web.judging.judge_process): calls
carry their progress and result across, a call in flight when the child dies fails as
the judge's failure (never hangs), and the next call starts a new child."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from problem_factory import GOOD, WRONG
from sandbox_host import needs_sandbox

from judge.errors import SourceError
from judge.problem.device import DevicePolicy
from judge.problem.problemset import ProblemSet
from judge.run.phase import Phase
from judge.verdict import Verdict
from web.judging.judge_process import JudgeGone, JudgeProcess, RunnerSettings

pytestmark = [pytest.mark.sandbox, needs_sandbox]

SEED = 11
# Each case sleeps 1.5 s (the problem allows 2 s a case, 10 s in all): a call in flight.
SLOW = "import time\n\ndef add(a, b):\n    time.sleep(1.5)\n    return a + b\n"


@pytest.fixture
def judge(problems_root: Path) -> Iterator[JudgeProcess]:
    process = JudgeProcess(RunnerSettings(1, problems_root, 0, DevicePolicy.CPU))
    yield process
    process.close()


def test_a_judging_crosses_with_its_progress_and_its_report(
    judge: JudgeProcess, problems_root: Path
) -> None:
    problem = ProblemSet(problems_root).get("add-two")
    phases: list[Phase] = []
    report = judge.run(problem, GOOD, SEED, phases.append)
    assert report.verdict is Verdict.AC and report.seed != "public"
    assert phases and phases[-1].done <= phases[-1].total
    assert judge.run(problem, WRONG, SEED).verdict is Verdict.WA
    with pytest.raises(SourceError):
        judge.run(problem, "def add(a, b):\n    return a + b\n" + "#" * (1 << 20), SEED)
    custom = judge.try_input(problem, {"a": 2, "b": 40}, None)
    assert custom["answered"] and custom["expected"] == 42


def test_a_child_killed_mid_judging_fails_the_call_and_the_next_starts_another(
    judge: JudgeProcess, problems_root: Path
) -> None:
    problem = ProblemSet(problems_root).get("add-two")
    first = judge.pid
    assert first is not None
    failed: list[BaseException] = []

    def call() -> None:
        try:
            judge.run(problem, SLOW, SEED)
        except BaseException as exc:
            failed.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    time.sleep(1.0)  # the slow submission is being judged
    os.kill(first, signal.SIGKILL)
    caller.join(30)
    assert not caller.is_alive(), "a call in flight hung after its judge died"
    assert len(failed) == 1 and isinstance(failed[0], JudgeGone), failed
    assert judge.run(problem, GOOD, SEED).verdict is Verdict.AC
    assert judge.pid not in (None, first)
