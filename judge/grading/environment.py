"""What a result was computed on, recorded with every report so runs can be compared fairly."""

from __future__ import annotations

import os
import sys

from judge.problem.device import Device


def describe(tier: str, launcher: str, device: Device = Device.CPU) -> dict[str, str]:
    """Where the run happened. A torch-tier run names the job's `device` ("cpu" or "cuda":
    the one the parent chose for the job, judge/problem/device.py), never this process's
    (which computes the references on the CPU and never touches CUDA)."""
    env = {
        "python": ".".join(str(n) for n in sys.version_info[:3]),
        "implementation": sys.implementation.name,
        "platform": sys.platform,
        "machine": os.uname().machine,
        "launcher": launcher,
    }
    if tier == "torch":
        env.update(_torch())
        env["device"] = device.value
    return env


def _torch() -> dict[str, str]:
    # The reference has run in this process, so torch is imported already; never import it here.
    torch = sys.modules.get("torch")
    if torch is None:
        return {"torch": "not loaded"}
    return {"torch": str(torch.__version__)}
