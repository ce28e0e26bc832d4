"""Jobs side by side: a hostile job must not slow down or break the job next to it."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.problem.device import Device
from judge.problem.spec import ProblemSpec
from judge.run.judge_source import judge_source
from judge.run.phase import Phase
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher

HOSTILE = {
    "fork-bomb": """
        import os
        def add(a, b):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        """,
    "busy-threads": """
        import threading
        def spin():
            while True:
                pass
        for _ in range(8):
            threading.Thread(target=spin, daemon=True).start()
        def add(a, b):
            while True:
                pass
        """,
    "memory-hog": """
        def add(a, b):
            hoard = []
            while True:
                hoard.append(b"x" * (1 << 20))
        """,
}


@pytest.fixture(scope="module")
def two_workers():  # type: ignore[no-untyped-def]
    launcher = SandboxLauncher(pool_size=2, preload=())
    yield launcher
    launcher.close()


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_normal_job_next_to_a_hostile_one_is_judged_correctly(
    kind: str, two_workers: SandboxLauncher, add_problem: ProblemSpec
) -> None:
    hostile = textwrap.dedent(HOSTILE[kind])
    normal = add_problem.reference_source()
    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(judge_source, add_problem, hostile, launcher=two_workers)
        good = pool.submit(judge_source, add_problem, normal, launcher=two_workers)
        bad_report, good_report = bad.result(), good.result()
    assert bad_report.verdict in (Verdict.TLE, Verdict.RE, Verdict.MLE)
    assert good_report.verdict is Verdict.AC, good_report.to_dict()
    # The normal job's cases stayed fast while its neighbour burned everything it could.
    assert max(c.time_ms for c in good_report.cases) < 800


def test_a_worker_dying_mid_job_is_an_internal_error_and_is_replaced(
    two_workers: SandboxLauncher, add_problem: ProblemSpec
) -> None:
    """Pins: a job whose worker was killed from outside used to be reported as RE."""
    jobs = []

    class Spy:
        name = "sandbox"

        def device_for(self, problem):  # type: ignore[no-untyped-def]
            return two_workers.device_for(problem)

        def launch(self, problem, limits, device=Device.CPU):  # type: ignore[no-untyped-def]
            handle = two_workers.launch(problem, limits, device)
            jobs.append(handle.job)
            return handle

    def kill_after_the_first_case(phase: Phase) -> None:
        # Between two cases, whatever the machine's load: the job is certainly mid-way.
        if phase.done == 1:
            jobs[0].worker.kill()

    # The second case waits, so the job is certainly still running when its worker dies (a
    # job of quick cases could finish in the moment the kernel takes to empty the sandbox).
    source = textwrap.dedent(
        """
        import time
        calls = []
        def add(a, b):
            calls.append(1)
            if len(calls) > 1:
                time.sleep(30)
            return a + b
        """
    )
    report = judge_source(add_problem, source, launcher=Spy(), progress=kill_after_the_first_case)
    assert report.verdict is Verdict.IE
    assert "worker died" in (report.internal_error or "")
    after = judge_source(add_problem, add_problem.reference_source(), launcher=two_workers)
    assert after.verdict is Verdict.AC
