"""A small ctypes binding to NVIDIA's management library (libnvidia-ml.so.1).

The runner reads the GPU from the outside through it: how much device memory each
process holds, the device's name, the driver. NVML talks to the kernel driver, not to
CUDA, so the trusted parent never creates a CUDA context and a warm worker stays safe to
fork. Everything here fails soft: without the library (no driver, a CPU-only host) or
when a call fails, `open_nvml()` returns `NvmlMissing` with the reason, which the doctor
prints; it never raises for a missing GPU.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from dataclasses import dataclass
from typing import Protocol

LIBRARY = "libnvidia-ml.so.1"
_SUCCESS = 0
_INSUFFICIENT_SIZE = 7
_NOT_AVAILABLE = (1 << 64) - 1  # NVML_VALUE_NOT_AVAILABLE: usedGpuMemory unknown (no permission)
_NAME_CHARS = 96  # NVML_DEVICE_NAME_V2_BUFFER_SIZE
_VERSION_CHARS = 80  # NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE


class _ProcessInfoV1(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong)]


class _ProcessInfoV2(ctypes.Structure):
    # The layout _v2 and _v3 of nvmlDeviceGetComputeRunningProcesses fill (nvml.h).
    _fields_ = [
        ("pid", ctypes.c_uint),
        ("usedGpuMemory", ctypes.c_ulonglong),
        ("gpuInstanceId", ctypes.c_uint),
        ("computeInstanceId", ctypes.c_uint),
    ]


# Newest first: a driver older than the _v3 entry point has _v2 or only the plain one.
_PROCESS_CALLS = (
    ("nvmlDeviceGetComputeRunningProcesses_v3", _ProcessInfoV2),
    ("nvmlDeviceGetComputeRunningProcesses_v2", _ProcessInfoV2),
    ("nvmlDeviceGetComputeRunningProcesses", _ProcessInfoV1),
)


class DeviceMemoryReader(Protocol):
    """What the device-memory watcher needs: the device memory each host pid holds now."""

    def used_bytes_by_pid(self) -> dict[int, int]: ...


class NvmlError(RuntimeError):
    """An NVML call returned an error code (the message names the call and the code)."""


@dataclass(frozen=True, slots=True)
class NvmlMissing:
    """NVML cannot be used here, and why (shown by the doctor and the GPU check)."""

    reason: str


class Nvml:
    """An initialised NVML; `open_nvml()` makes one. Calls are serialised by a lock, as
    the watcher threads of several GPU jobs may poll at once."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        self._lock = threading.Lock()
        self._process_call = _first_present(lib)

    def _check(self, name: str, code: int) -> None:
        if code != _SUCCESS:
            raise NvmlError(f"{name} failed with NVML error {code}")

    def device_count(self) -> int:
        count = ctypes.c_uint(0)
        with self._lock:
            code = self._lib.nvmlDeviceGetCount_v2(ctypes.byref(count))
        self._check("nvmlDeviceGetCount_v2", code)
        return count.value

    def _handle(self, index: int) -> ctypes.c_void_p:
        handle = ctypes.c_void_p()
        code = self._lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index), ctypes.byref(handle))
        self._check("nvmlDeviceGetHandleByIndex_v2", code)
        return handle

    def device_name(self, index: int) -> str:
        """The device's marketing name, for example "NVIDIA H200"."""
        buffer = ctypes.create_string_buffer(_NAME_CHARS)
        with self._lock:
            handle = self._handle(index)
            code = self._lib.nvmlDeviceGetName(handle, buffer, ctypes.c_uint(_NAME_CHARS))
            self._check("nvmlDeviceGetName", code)
        return buffer.value.decode("utf-8", "replace")

    def driver_version(self) -> str:
        buffer = ctypes.create_string_buffer(_VERSION_CHARS)
        with self._lock:
            code = self._lib.nvmlSystemGetDriverVersion(buffer, ctypes.c_uint(_VERSION_CHARS))
            self._check("nvmlSystemGetDriverVersion", code)
        return buffer.value.decode("utf-8", "replace")

    def used_bytes_by_pid(self) -> dict[int, int]:
        """Device memory per process (host pids, as the driver sees them), summed over
        every device; a process whose figure NVML withholds counts as 0."""
        used: dict[int, int] = {}
        for index in range(self.device_count()):
            with self._lock:
                infos = self._processes(self._handle(index))
            for pid, nbytes in infos:
                used[pid] = used.get(pid, 0) + nbytes
        return used

    def _processes(self, handle: ctypes.c_void_p) -> list[tuple[int, int]]:
        name, struct = self._process_call
        call = getattr(self._lib, name)
        count = ctypes.c_uint(0)
        code = call(handle, ctypes.byref(count), None)
        if code == _SUCCESS:
            return []  # no process on this device
        # The list can grow between the two calls: room for a few more, and retry once.
        for _ in range(2):
            if code != _INSUFFICIENT_SIZE:
                self._check(name, code)
            room = count.value + 8
            infos = (struct * room)()
            count = ctypes.c_uint(room)
            code = call(handle, ctypes.byref(count), infos)
            if code == _SUCCESS:
                return [
                    (int(infos[i].pid), _bytes(infos[i].usedGpuMemory)) for i in range(count.value)
                ]
        self._check(name, code)
        return []


def _bytes(value: int) -> int:
    return 0 if value == _NOT_AVAILABLE else int(value)


def _first_present(lib: ctypes.CDLL) -> tuple[str, type[ctypes.Structure]]:
    for name, struct in _PROCESS_CALLS:
        if hasattr(lib, name):
            return name, struct
    raise NvmlError("the library has no nvmlDeviceGetComputeRunningProcesses")


@functools.cache
def open_nvml(library: str = LIBRARY) -> Nvml | NvmlMissing:
    """NVML, initialised once per process (the driver's state is per process), or why it
    is not available."""
    return _open(library)


def _open(library: str) -> Nvml | NvmlMissing:
    try:
        lib = ctypes.CDLL(library)
    except OSError as exc:
        return NvmlMissing(f"{library} could not be loaded ({exc}): no NVIDIA driver here")
    try:
        init = lib.nvmlInit_v2
    except AttributeError:
        return NvmlMissing(f"{library} has no nvmlInit_v2")
    code = init()
    if code != _SUCCESS:
        return NvmlMissing(f"nvmlInit_v2 failed with NVML error {code}")
    try:
        return Nvml(lib)
    except NvmlError as exc:
        return NvmlMissing(str(exc))
