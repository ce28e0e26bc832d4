"""A speed's device class: the board it ranks on. A CPU score never ranks beside a GPU
score, nor a GPU's beside another model's: "cpu", or "gpu:" and the GPU's model.

Derived once, when a run is stored (web/judging/core_seam.py), from the report's speed
hardware (judge.problem.speed_spec.hardware: device "cuda" and the GPU's model), else
from the report's environment ("cuda (NVIDIA H200)" in reports written before the speed
named the GPU); stored in `submissions.device_class`, so a board is one indexed walk.
"""

from __future__ import annotations

from collections.abc import Mapping

CPU = "cpu"
GPU_PREFIX = "gpu:"
MAX_CHARS = 120  # the column's width
UNKNOWN_GPU = "NVIDIA GPU (model unknown)"


def of_run(hardware: Mapping[str, object] | None, env_device: str = "") -> str:
    """The device class of a run whose speed measured `hardware` (None: the report had no
    speed) under a report environment whose device was `env_device`."""
    device = str((hardware or {}).get("device") or env_device or CPU)
    if not device.startswith("cuda"):
        return CPU
    model = str((hardware or {}).get("gpu") or "")
    if not model and "(" in env_device:  # "cuda (NVIDIA H200)"
        model = env_device.partition("(")[2].rstrip(")")
    return (GPU_PREFIX + (model.strip() or UNKNOWN_GPU))[:MAX_CHARS]


def title(device_class: str) -> str:
    """A board's heading: "CPU", or "GPU · NVIDIA H200" (the same in both languages)."""
    if device_class.startswith(GPU_PREFIX):
        return f"GPU · {device_class.removeprefix(GPU_PREFIX)}"
    return "CPU"


def board_order(device_class: str) -> tuple[int, str]:
    """CPU's board first, then each GPU's by model name."""
    return (0, "") if device_class == CPU else (1, device_class)
