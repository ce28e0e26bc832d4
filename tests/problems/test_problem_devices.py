"""Every torch problem runs on the device its job was given, and a problem lists CUDA only
where it can really be judged there.

On the CPU: every torch driver asks the judge for its device (never torch.cuda), and every
problem that lists cuda says how its answers are checked there (exactly, or with a stated
[checker.cuda] tolerance). On a GPU (marked `gpu`, skipped without one): each such problem's
self-check passes with every job on CUDA: its reference is AC on its own CPU answers and
each wrong solution fails as its header declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.problem.device import Device, DevicePolicy
from judge.problem.problemset import ProblemSet

PROBLEMS = ProblemSet().all()
TORCH = [p for p in PROBLEMS if p.tier == "torch"]
ON_CUDA = [p for p in TORCH if Device.CUDA in p.devices]


def test_every_torch_driver_asks_the_judge_for_its_device() -> None:
    assert TORCH
    for problem in TORCH:
        driver = problem.cases_source()
        assert "job_device" in driver, problem.slug
        assert not re.search(r"cuda\.is_available|\.cuda\(", driver), problem.slug


def test_a_problem_on_cuda_states_how_its_answers_are_checked_there() -> None:
    assert ON_CUDA  # at least one problem is judged on a GPU where there is one
    for problem in ON_CUDA:
        checker = problem.checker
        assert checker.kind == "exact" or checker.cuda is not None, problem.slug
        toml = (problem.path / "problem.toml").read_text(encoding="utf-8")
        assert "[checker.cuda]" not in toml or "# A CUDA job is checked" in toml, problem.slug


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/nvidia0").exists(), reason="needs an NVIDIA GPU (/dev/nvidia0)")
@pytest.mark.parametrize("problem", ON_CUDA, ids=lambda p: p.slug)
def test_a_cuda_problem_passes_its_self_check_on_cuda(problem, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from judge.commands.selfcheck import check_problem
    from judge.run.launch import LocalLauncher

    launcher = LocalLauncher(tmp_path, policy=DevicePolicy.CUDA)
    assert launcher.device_for(problem) is Device.CUDA
    result = check_problem(problem, launcher)
    failed = [c for c in result.checks if not c.ok]
    assert not failed, failed
