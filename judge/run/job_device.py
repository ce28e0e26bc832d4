"""The device this job's cases run on, as the judge chose it: what a problem's driver asks.

    from judge.run.job_device import job_device
    device = job_device().value                               # "cpu" or "cuda"
    model = zoo.model(args["model"], device=device)
    return on_cpu(sub.generate(model, ...))                  # observations leave from the CPU

The trusted parent chooses the device (judge/problem/device.py) and sends it in the load
message; the child records it here before it runs the driver, so a driver never guesses
with torch.cuda.is_available() (a GPU job's walls, its semaphore and the checker's
tolerance all follow the parent's choice, not the driver's). In the parent, which computes
the references, it is always the CPU.

A submission runs in the same process and could call `set_job_device`: the device nodes it
would need are covered in a CPU job (runner/jobspace.py), and running a CUDA job's work on
the CPU only makes it slower.
"""

from __future__ import annotations

import sys

from judge.problem.device import Device

# One value for the process; a list, so that set_job_device needs no `global`.
_DEVICE = [Device.CPU]


def job_device() -> Device:
    """Where this job's tensors belong (its results go back to the CPU)."""
    return _DEVICE[0]


def set_job_device(device: object) -> None:
    """The child's load step only: the device the parent chose for this job (its text)."""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"a job's device is cpu or cuda, not {device!r}")
    _DEVICE[0] = Device(device)


def on_cpu(value: object) -> object:
    """`value` with every tensor in it (in lists, tuples and dicts, at any depth) moved to
    the CPU: what a driver returns from a CUDA job, since observations are encoded from CPU
    memory. Values without tensors come back as they were."""
    torch = sys.modules.get("torch")
    if torch is None:
        return value
    return _moved(torch, value, 0)


def _moved(torch: object, value: object, depth: int) -> object:
    if depth > 100:  # the encoder refuses deeper values anyway; say nothing here
        return value
    if isinstance(value, torch.Tensor):  # type: ignore[attr-defined]
        return value.cpu()
    if type(value) is list:
        return [_moved(torch, v, depth + 1) for v in value]
    if type(value) is tuple:
        return tuple(_moved(torch, v, depth + 1) for v in value)
    if type(value) is dict:
        return {k: _moved(torch, v, depth + 1) for k, v in value.items()}
    return value
