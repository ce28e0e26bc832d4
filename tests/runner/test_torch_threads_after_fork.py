"""A job that asks torch for a second thread must not hang (red-team pass on the torch tier).

The warm worker loads the zoo's checkpoints before it forks jobs. Loading with torch's
default thread count started an OpenMP pool in the worker; a forked job inherits GNU
OpenMP's idea of that pool but not its threads, so a submission that calls
torch.set_num_threads(2) (a learner tuning decode-throughput) hung in its first parallel
op and got TLE for a correct answer.
"""

from __future__ import annotations

import pytest

from judge.problem.problemset import ProblemSet
from runner.launchers.sandbox import SandboxLauncher

pytest.importorskip("torch")

TWO_THREADS = """\
import torch

torch.set_num_threads(2)
a = torch.randn(512, 512)
for _ in range(20):
    a = (a @ a).tanh()
raise ImportError("two threads ran")
"""


@pytest.mark.parametrize("pool_size", [0, 1])
def test_a_job_can_use_two_torch_threads_without_hanging(pool_size: int) -> None:
    from judge.run.judge_source import judge_source

    problem = ProblemSet().get("greedy-generate")
    launcher = SandboxLauncher(pool_size=pool_size)
    try:
        report = judge_source(problem, TWO_THREADS, launcher=launcher)
    finally:
        launcher.close()
    error = report.compile_error or {}
    assert "two threads ran" in str(error.get("message")), (report.verdict, report.cases[:1])
