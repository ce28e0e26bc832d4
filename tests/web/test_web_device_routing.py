"""JUDGE_DEVICE is read once with the rest of the configuration; a problem judged only on
CUDA is queued for GPU workers, every other problem for CPU workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import write_web_problem

from judge.problem.device import Device, DevicePolicy
from judge.problem.spec import load_problem
from judge.record import replace
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
    assert capability_for(replace(problem, devices=devices)) is queue


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


@pytest.mark.parametrize(
    ("name", "raw", "said"),
    [
        ("JUDGE_WORKERS", "two", "JUDGE_WORKERS must be a whole number, not 'two'"),
        ("JUDGE_RUN_SLOTS", "1.5", "JUDGE_RUN_SLOTS must be a whole number, not '1.5'"),
        ("JUDGE_SPEED_SPREAD_LIMIT", "wide", "JUDGE_SPEED_SPREAD_LIMIT must be a fraction"),
        ("JUDGE_SPEED_SPREAD_LIMIT", "2", "JUDGE_SPEED_SPREAD_LIMIT must be a fraction"),
    ],
)
def test_a_setting_that_is_not_a_number_of_its_kind_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, raw: str, said: str
) -> None:
    monkeypatch.setenv(name, raw)
    with pytest.raises(ValueError, match=said):
        load_config(tmp_path / "instance")


def test_the_speed_spread_limit_is_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_SPEED_SPREAD_LIMIT", raising=False)
    assert load_config(tmp_path / "instance").speed_spread_limit == 0.25
    monkeypatch.setenv("JUDGE_SPEED_SPREAD_LIMIT", "0.4")
    assert load_config(tmp_path / "instance").speed_spread_limit == 0.4
