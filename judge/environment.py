"""What a result was computed on, recorded with every report so runs can be compared fairly."""

from __future__ import annotations

import platform
import sys
from importlib import metadata


def describe(tier: str, launcher: str) -> dict[str, str]:
    env = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "machine": platform.machine(),
        "launcher": launcher,
    }
    if tier == "torch":
        env.update(_torch())
    return env


def _torch() -> dict[str, str]:
    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return {"torch": "missing"}
    device = "cpu"
    torch = sys.modules.get("torch")  # only look if it is already imported; importing costs seconds
    if torch is not None and torch.cuda.is_available():
        device = f"cuda ({torch.cuda.get_device_name(0)})"
    return {"torch": version, "device": device}
