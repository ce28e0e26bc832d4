"""The NVML binding: fails soft without the library, reads per-process device memory
through whichever entry point the driver has (a fake library here; the real one where a
GPU is)."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from runner import doctor
from runner.nvml import Nvml, NvmlError, NvmlMissing, open_nvml

GiB = 1 << 30
NOT_AVAILABLE = (1 << 64) - 1


def _out(pointer: Any) -> Any:
    return pointer._obj  # the ctypes object behind byref()


class FakeDriver:
    """Stands in for libnvidia-ml.so.1: one device, its processes as the test sets them.
    `entry` is the process call this driver version has; it first answers "too small"."""

    def __init__(self, processes: list[tuple[int, int]], entry: str) -> None:
        self.processes = processes
        setattr(self, entry, self._processes)

    def nvmlDeviceGetCount_v2(self, count: Any) -> int:
        _out(count).value = 1
        return 0

    def nvmlDeviceGetHandleByIndex_v2(self, index: Any, handle: Any) -> int:
        _out(handle).value = 1234 + index.value
        return 0

    def nvmlDeviceGetName(self, handle: Any, buffer: Any, length: Any) -> int:
        buffer.value = b"NVIDIA H200"
        return 0

    def nvmlSystemGetDriverVersion(self, buffer: Any, length: Any) -> int:
        buffer.value = b"550.54.15"
        return 0

    def _processes(self, handle: Any, count: Any, infos: Any) -> int:
        room = _out(count).value
        _out(count).value = len(self.processes)
        if infos is None or room < len(self.processes):
            return 7 if self.processes else 0  # NVML_ERROR_INSUFFICIENT_SIZE, or none at all
        for i, (pid, used) in enumerate(self.processes):
            infos[i].pid, infos[i].usedGpuMemory = pid, used
        return 0


@pytest.mark.parametrize(
    "entry",
    [
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses",
    ],
)
def test_device_memory_is_read_per_process_through_whichever_entry_point_exists(
    entry: str,
) -> None:
    nvml = Nvml(FakeDriver([(41, 2 * GiB), (42, NOT_AVAILABLE)], entry))  # type: ignore[arg-type]
    assert nvml.used_bytes_by_pid() == {41: 2 * GiB, 42: 0}  # a withheld figure counts as 0
    assert (nvml.device_count(), nvml.device_name(0)) == (1, "NVIDIA H200")
    assert nvml.driver_version() == "550.54.15"


def test_a_device_with_no_process_reads_as_empty() -> None:
    driver = FakeDriver([], "nvmlDeviceGetComputeRunningProcesses_v3")
    assert Nvml(driver).used_bytes_by_pid() == {}  # type: ignore[arg-type]


def test_a_failing_call_names_itself_and_its_error_code() -> None:
    driver = FakeDriver([(41, GiB)], "nvmlDeviceGetComputeRunningProcesses_v3")
    driver.nvmlDeviceGetCount_v2 = lambda count: 999  # type: ignore[method-assign]
    with pytest.raises(NvmlError, match="nvmlDeviceGetCount_v2 failed with NVML error 999"):
        Nvml(driver).used_bytes_by_pid()  # type: ignore[arg-type]


def test_a_library_without_a_process_call_is_refused_clearly() -> None:
    with pytest.raises(NvmlError, match="no nvmlDeviceGetComputeRunningProcesses"):
        Nvml(object())  # type: ignore[arg-type]


def test_without_the_library_nvml_is_missing_with_the_reason() -> None:
    missing = open_nvml("libnvidia-ml-absent.so.1")
    assert isinstance(missing, NvmlMissing)
    assert missing.reason.startswith("libnvidia-ml-absent.so.1 could not be loaded")


def test_the_process_info_layout_matches_nvml_h() -> None:
    from runner.nvml import _ProcessInfoV1, _ProcessInfoV2

    # pid (4) + padding (4) + usedGpuMemory (8) [+ gpuInstanceId (4) + computeInstanceId (4)]
    assert (ctypes.sizeof(_ProcessInfoV1), ctypes.sizeof(_ProcessInfoV2)) == (16, 24)


def test_the_doctor_says_device_memory_is_not_watched_on_a_host_without_a_gpu() -> None:
    assert doctor.device_memory_line([]) == (
        "not watched: no NVIDIA device nodes here (no GPU jobs)"
    )


@pytest.mark.gpu
def test_the_real_driver_names_the_gpu_and_lists_processes() -> None:
    nvml = open_nvml()
    if isinstance(nvml, NvmlMissing):
        pytest.skip(nvml.reason)
    assert nvml.device_count() >= 1 and nvml.device_name(0)
    assert all(n >= 0 for n in nvml.used_bytes_by_pid().values())
