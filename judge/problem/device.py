"""Where a job's cases run: the CPU or a CUDA GPU, chosen per job by the trusted parent.

A problem lists the devices it can be judged on (problem.toml `devices`); the judge's
configuration says how to choose among them (`JUDGE_DEVICE`, `judge run --device`); the
host either has an NVIDIA GPU's device nodes or not. The choice is made once, by the
parent, before the job starts: it decides which walls the job gets (runner/launchers/sandbox.py)
and travels to the child in the load message, where the problem's driver reads it
(judge.run.job_device). Nothing here imports torch or touches CUDA: the parent only looks
for device nodes.
"""

from __future__ import annotations

import glob
import re
from enum import Enum

from judge.errors import JudgeError

# The nodes that mean "an NVIDIA GPU is here": /dev/nvidia0, /dev/nvidia1, ... (not
# /dev/nvidiactl or /dev/nvidia-uvm, which exist beside them but are no GPU of their own).
GPU_NODE = re.compile(r"^/dev/nvidia\d+$")


class Device(str, Enum):
    """The device one job's cases run on."""

    CPU = "cpu"
    CUDA = "cuda"

    def __str__(self) -> str:
        return self.value


class DevicePolicy(str, Enum):
    """How the judge chooses a job's device (JUDGE_DEVICE, `judge run --device`)."""

    AUTO = "auto"  # CUDA where the host has a GPU and the problem allows it, else the CPU
    CPU = "cpu"  # always the CPU; a problem that runs only on CUDA cannot be judged here
    CUDA = "cuda"  # always CUDA; an error where there is no GPU or the problem refuses it

    def __str__(self) -> str:
        return self.value


class DeviceUnavailable(JudgeError):
    """The configured policy cannot judge this problem on this host; the message says why."""

    def __init__(self, key: str, slug: str) -> None:
        from judge.messages import say  # here, not at the top: the child never says this

        self.said = say(key, slug=slug)
        super().__init__(self.said.en)


def parse_policy(value: str, where: str = "JUDGE_DEVICE") -> DevicePolicy:
    """A policy from configuration text; ValueError naming `where` and the choices."""
    try:
        return DevicePolicy(value.strip().lower())
    except ValueError:
        choices = ", ".join(p.value for p in DevicePolicy)
        raise ValueError(f"{where} must be one of {choices}, not {value!r}") from None


def gpu_nodes() -> tuple[str, ...]:
    """The host's GPU device nodes (/dev/nvidia0 ...), sorted; () where there is none."""
    return tuple(sorted(n for n in glob.glob("/dev/nvidia*") if GPU_NODE.match(n)))


def choose_device(
    policy: DevicePolicy, allowed: tuple[Device, ...], has_gpu: bool, slug: str = "this problem"
) -> Device:
    """The device a job of a problem that allows `allowed` runs on, under `policy`, on a
    host that `has_gpu` or not; DeviceUnavailable (a sentence for the reader) where none fits."""
    cuda_ok, cpu_ok = Device.CUDA in allowed, Device.CPU in allowed
    if policy is DevicePolicy.CPU:
        if not cpu_ok:
            raise DeviceUnavailable("device.only_cuda", slug)
        return Device.CPU
    if policy is DevicePolicy.CUDA and not cuda_ok:
        raise DeviceUnavailable("device.only_cpu", slug)
    if cuda_ok and has_gpu:
        return Device.CUDA
    if policy is DevicePolicy.AUTO and cpu_ok:
        return Device.CPU
    raise DeviceUnavailable("device.no_gpu", slug)
