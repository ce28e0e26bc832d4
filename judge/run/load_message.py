"""The message that loads a source into a child: the submission's into its job, the
reference's into a trusted child (calibration, the pacer, the reference cache), and a hosted
problem's cases.py into its trusted driver."""

from __future__ import annotations

from judge.problem.device import Device
from judge.problem.spec import ProblemSpec


def load_message(
    problem: ProblemSpec, source: str, device: Device = Device.CPU
) -> dict[str, object]:
    """What the child loads. `device` is the parent's choice, which the driver reads
    (judge.run.job_device). Only a CPU job's CPU rule refuses new processes: a CUDA job's
    rule counts wall time (judge/problem/limits.py), which no helper process can hide from."""
    counted_cpu = problem.cpu_rule is not None and device is Device.CPU
    return {
        "type": "load",
        "source": source,
        # A hosted job answers a trusted driver's calls: its cases.py runs elsewhere.
        "driver": "" if problem.hosted else problem.cases_source(),
        "hosted": problem.hosted,
        "names": list(problem.names),
        "withheld": list(problem.withheld),
        "threads_only": counted_cpu and can_refuse_processes(),
        "device": device.value,
    }


def driver_load_message(problem: ProblemSpec, device: Device = Device.CPU) -> dict[str, object]:
    """What a hosted problem's trusted driver loads: its cases.py, and the names it will
    call in the job (judge/run/hosted_session.py)."""
    return {
        "type": "load",
        "drive": True,
        "driver": problem.cases_source(),
        "names": list(problem.names),
        "device": device.value,
    }


def can_refuse_processes() -> bool:
    """judge.run.threads_only.available(), asked only under a CPU rule: the module loads ctypes,
    which no other run needs (start-up time)."""
    from judge.run import threads_only

    return threads_only.available()
