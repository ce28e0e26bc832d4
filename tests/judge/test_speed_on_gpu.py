"""A speed run on a GPU: held to the GPU's own copy bandwidth, and its hardware names the
GPU. No GPU here: the measurement and the driver's /proc files are faked; the CPU path is
checked to be what it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.grading.report import CaseResult
from judge.grading.speed_scoring import score_run
from judge.problem import device_copy, gpu_identity, speed_spec
from judge.problem.cases import Case
from judge.problem.checkers import CheckSpec
from judge.problem.speed_spec import SpeedSpec, Timed
from judge.verdict import Verdict

GB = 1e9
SPEC = SpeedSpec("tokens/s")
# Five repetitions of 10 ms that must each read 10 GB: 1 TB/s, beyond any CPU's memory
# (a ceiling of 4 x 100 GB/s) and within an H200's (4 x 4 TB/s).
CASES = [
    Case(f"timed-{i}", [], CheckSpec("value"), False, timed=Timed(100.0, 10 * GB)) for i in range(5)
]
GRADED = [CaseResult(c.name, False, Verdict.AC, time_ms=10.0) for c in CASES]


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The CPU's memcpy measures 100 GB/s, the GPU's copy 4 TB/s; counts the measurements."""
    counted = {"cpu": 0, "cuda": 0}

    def cpu() -> float:
        counted["cpu"] += 1
        return 100 * GB

    def cuda() -> float:
        counted["cuda"] += 1
        return 4000 * GB

    monkeypatch.setattr(speed_spec, "measure_copy_bandwidth", cpu)
    monkeypatch.setattr(device_copy, "measure_device_copy_bandwidth", cuda)
    monkeypatch.setattr(speed_spec, "_measured", {})
    monkeypatch.delenv("JUDGE_MEMORY_BANDWIDTH_GBS", raising=False)
    monkeypatch.delenv("JUDGE_DEVICE_BANDWIDTH_GBS", raising=False)
    return counted


@pytest.fixture
def h200(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The NVIDIA driver's /proc files as an H200 host shows them."""
    gpu = tmp_path / "gpus" / "0000:19:00.0"
    gpu.mkdir(parents=True)
    (gpu / "information").write_text(
        "Model: \t\t NVIDIA H200\nIRQ:   \t\t 156\nBus Type: \t PCIe\n", encoding="utf-8"
    )
    (tmp_path / "version").write_text(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(gpu_identity, "DRIVER_PROC", tmp_path)
    return tmp_path


def test_a_cuda_run_is_held_to_the_gpus_copy_bandwidth_not_the_cpus(
    copies: dict[str, int], h200: Path
) -> None:
    graded, result = score_run(SPEC, CASES, GRADED, {"launcher": "sandbox", "device": "cuda"})
    assert all(g.verdict is Verdict.AC for g in graded) and result is not None
    assert copies == {"cpu": 0, "cuda": 1}  # measured once, never the CPU's memcpy
    assert result.hardware["device"] == "cuda" and result.hardware["gpu"] == "NVIDIA H200"


def test_the_same_timings_on_the_cpu_are_refused_as_faster_than_memory_allows(
    copies: dict[str, int],
) -> None:
    graded, result = score_run(SPEC, CASES, GRADED, {"launcher": "sandbox", "device": "cpu"})
    assert result is None and all(g.verdict is Verdict.WA for g in graded)
    assert "faster than this machine's memory allows" in graded[0].message
    assert copies == {"cpu": 2, "cuda": 0}  # measured, then again before refusing


def test_a_report_without_a_device_is_scored_as_a_cpu_run_as_before(
    copies: dict[str, int],
) -> None:
    _, result = score_run(SPEC, CASES, GRADED, {"launcher": "sandbox"})
    assert result is None and copies["cuda"] == 0


def test_each_device_class_keeps_its_own_ceiling_once_measured(copies: dict[str, int]) -> None:
    assert speed_spec.bandwidth_ceiling(device="cuda") == speed_spec.CEILING_MARGIN * 4000 * GB
    assert speed_spec.bandwidth_ceiling(device="cpu") == speed_spec.CEILING_MARGIN * 100 * GB
    assert speed_spec.bandwidth_ceiling(device="cuda (NVIDIA H200)") == 4 * 4000 * GB
    assert copies == {"cpu": 1, "cuda": 1}


def test_a_cuda_ceiling_can_be_set_for_a_machine_whose_copy_misleads(
    copies: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_DEVICE_BANDWIDTH_GBS", "20000")
    assert speed_spec.bandwidth_ceiling(device="cuda") == 20000 * GB
    assert copies["cuda"] == 0


def test_a_gpu_whose_copy_cannot_be_measured_refuses_no_run_and_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails() -> float:
        raise device_copy.DeviceCopyFailed("the device copy exited with 1: no CUDA")

    monkeypatch.setattr(device_copy, "measure_device_copy_bandwidth", fails)
    monkeypatch.setattr(speed_spec, "_measured", {})
    monkeypatch.delenv("JUDGE_DEVICE_BANDWIDTH_GBS", raising=False)
    assert speed_spec.bandwidth_ceiling(device="cuda") == float("inf")
    assert "no bandwidth ceiling for CUDA runs: the device copy exited with 1" in (
        capsys.readouterr().err
    )


def test_a_cuda_runs_hardware_names_the_gpu_its_driver_and_the_cpu(h200: Path) -> None:
    info = speed_spec.hardware("sandbox", "cuda")
    assert (info["device"], info["gpu"], info["driver"]) == ("cuda", "NVIDIA H200", "550.54.15")
    assert info["cpu"] and info["launcher"] == "sandbox"


def test_a_cpu_runs_hardware_is_what_it_was() -> None:
    info = speed_spec.hardware("sandbox")
    assert set(info) == {"cpu", "device", "threads", "torch", "launcher"}
    assert info["device"] == "cpu" and info["threads"] == "1"


def test_the_gpu_model_and_driver_are_read_from_the_drivers_proc_files(h200: Path) -> None:
    assert gpu_identity.read_gpu_identity() == gpu_identity.GpuIdentity("NVIDIA H200", "550.54.15")


def test_without_the_drivers_proc_files_the_gpu_is_unknown(tmp_path: Path) -> None:
    assert gpu_identity.read_gpu_identity(tmp_path) == gpu_identity.GpuIdentity(
        gpu_identity.UNKNOWN_MODEL, ""
    )


@pytest.mark.parametrize(
    ("returncode", "stdout", "stderr", "says"),
    [
        (1, "", "Traceback ...\nRuntimeError: Found no NVIDIA driver", "exited with 1: Runtime"),
        (0, "not json\n", "", "printed 'not json\\n'"),
        (0, '{"bytes_per_s": -1.0}\n', "", "measured -1.0"),
        (0, "", "", "printed ''"),
    ],
)
def test_a_measurement_the_child_got_wrong_is_refused_with_what_it_said(
    returncode: int, stdout: str, stderr: str, says: str
) -> None:
    with pytest.raises(device_copy.DeviceCopyFailed, match=re.escape(says)):
        device_copy.parse_measurement(returncode, stdout, stderr)


def test_the_childs_figure_is_its_last_line() -> None:
    out = 'warming up\n{"bytes_per_s": 8.1e12, "copies": 9, "seconds": []}\n'
    assert device_copy.parse_measurement(0, out, "") == 8.1e12


def test_on_a_host_without_cuda_the_measuring_child_fails_clearly() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this host has CUDA: the gpu-marked test measures instead")
    with pytest.raises(device_copy.DeviceCopyFailed, match="the device copy exited with 1: "):
        device_copy.measure_device_copy_bandwidth()


@pytest.mark.gpu
def test_the_gpus_copy_is_measured_in_a_child_and_is_faster_than_any_cpus() -> None:
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    assert device_copy.measure_device_copy_bandwidth() > 200 * GB
