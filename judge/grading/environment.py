"""What a result was computed on, recorded with every report so runs can be compared fairly."""

from __future__ import annotations

import os
import sys


def describe(tier: str, launcher: str) -> dict[str, str]:
    env = {
        "python": ".".join(str(n) for n in sys.version_info[:3]),
        "implementation": sys.implementation.name,
        "platform": sys.platform,
        "machine": os.uname().machine,
        "launcher": launcher,
    }
    if tier == "torch":
        env.update(_torch())
    return env


def _torch() -> dict[str, str]:
    # The reference has run in this process, so torch is imported already; never import it here.
    torch = sys.modules.get("torch")
    if torch is None:
        return {"torch": "not loaded"}
    device = "cpu"
    if torch.cuda.is_available():
        device = f"cuda ({torch.cuda.get_device_name(0)})"
    return {"torch": str(torch.__version__), "device": device}
