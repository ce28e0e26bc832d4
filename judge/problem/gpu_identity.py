"""Which GPU a CUDA run used, read by the parent without initialising CUDA.

The NVIDIA kernel driver describes each GPU in /proc/driver/nvidia/gpus/<bus id>/information
("Model: NVIDIA H200") and itself in /proc/driver/nvidia/version; reading them creates
no CUDA context, so the parent stays as it was (and the core needs no library for it).
Never raises: where /proc lacks them (a container that mounts the driver's libraries
but not its /proc files) the GPU is "NVIDIA GPU (model unknown)".
"""

from __future__ import annotations

import re
from pathlib import Path

from judge.record import record

DRIVER_PROC = Path("/proc/driver/nvidia")
UNKNOWN_MODEL = "NVIDIA GPU (model unknown)"
_VERSION = re.compile(r"Kernel Module\s+(?:for \S+\s+)?([0-9][0-9.]*)")


@record
class GpuIdentity:
    name: str  # e.g. "NVIDIA H200"
    driver: str  # e.g. "550.54.15"; "" when unknown


def read_gpu_identity(proc: Path | None = None) -> GpuIdentity:
    """The first GPU's model and the driver's version (jobs run on one GPU: index 0)."""
    proc = DRIVER_PROC if proc is None else proc
    return GpuIdentity(_proc_model(proc) or UNKNOWN_MODEL, _proc_driver(proc))


def _proc_model(proc: Path) -> str:
    for info in sorted((proc / "gpus").glob("*/information")):
        try:
            text = info.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model" and value.strip():
                return value.strip()
    return ""


def _proc_driver(proc: Path) -> str:
    try:
        text = (proc / "version").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    found = _VERSION.search(text)
    return found.group(1) if found else ""
