"""JUDGE_DEVICE is read once with the rest of the configuration; a problem judged only on
CUDA is queued for GPU workers, every other problem for CPU workers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from problem_factory import write_web_problem

from judge.problem.device import Device, DevicePolicy
from judge.problem.spec import load_problem
from web.config import load_config
from web.judging.celery_queue import Capability, capability_for


@pytest.mark.parametrize(
    ("devices", "queue"),
    [
        ((Device.CPU,), Capability.CPU),
        ((Device.CPU, Device.CUDA), Capability.CPU),
        ((Device.CUDA,), Capability.GPU),
    ],
)
def test_only_a_problem_judged_only_on_cuda_goes_to_the_gpu_queue(
    tmp_path: Path, devices: tuple[Device, ...], queue: Capability
) -> None:
    problem = load_problem(write_web_problem(tmp_path, "add-two", tier="torch"))
    assert capability_for(dataclasses.replace(problem, devices=devices)) is queue


def test_judge_device_is_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_DEVICE", raising=False)
    assert load_config(tmp_path / "instance").device is DevicePolicy.AUTO
    monkeypatch.setenv("JUDGE_DEVICE", "cpu")
    assert load_config(tmp_path / "instance").device is DevicePolicy.CPU
    monkeypatch.setenv("JUDGE_DEVICE", "tpu")
    with pytest.raises(ValueError, match="JUDGE_DEVICE must be one of auto, cpu, cuda, not 'tpu'"):
        load_config(tmp_path / "instance")
