"""On a GPU host, only a job whose chosen device is CUDA reaches the GPU's device nodes, holds
the GPU's slot and goes without the address-space limit; every other job finds the nodes
covered by /dev/null and keeps the limit.

Regression (issue 20's second red-team pass): the sandbox bound /dev/nvidia* into every job
on a GPU host, so greedy-generate's recompute or batched-decode's one-at-a-time loop could
have run on CUDA, where the CPU rule counts nothing. This machine has no GPU: the tests give
the launcher a stand-in node, /dev/full (which reads as zeros; /dev/null reads as empty).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator

import pytest

from judge.problem.device import Device, DevicePolicy, DeviceUnavailable
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.record import replace
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.jobspace import JobLimits
from runner.launchers.sandbox import SandboxLauncher

STAND_IN = "/dev/full"

PROBE = """\
import json, resource
try:
    with open("/dev/full", "rb") as node:
        read = node.read(4).hex()
except OSError as exc:
    read = type(exc).__name__
limit = resource.getrlimit(resource.RLIMIT_AS)[0]
print("REPORT " + json.dumps({"read": read, "address_limit": limit != resource.RLIM_INFINITY}))

def add(a, b):
    return a + b
"""

UNCOVER = """\
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
results = [libc.umount2(b"/dev/full", 2), libc.mount(b"/dev/full", b"/dev/full", None, 0x1000, None)]
with open("/dev/full", "rb") as node:
    read = node.read(4).hex()
print("REPORT " + json.dumps({"results": results, "read": read}))

def add(a, b):
    return a + b
"""


@pytest.fixture(scope="module")
def gpu_host() -> Iterator[SandboxLauncher]:
    """A launcher that takes /dev/full for the GPU's one device node (policy auto)."""
    launcher = SandboxLauncher(pool_size=1, preload=(), gpu_nodes=(STAND_IN,))
    yield launcher
    launcher.close()


def _on(problem: ProblemSpec, *devices: Device) -> ProblemSpec:
    return replace(problem, devices=devices)


def _report(problem: ProblemSpec, source: str, launcher: SandboxLauncher) -> dict[str, object]:
    report = judge_source(problem, textwrap.dedent(source), launcher=launcher)
    assert report.verdict is Verdict.AC, report.to_dict()
    line = next(x for x in report.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line.removeprefix("REPORT "))  # type: ignore[no-any-return]


def test_a_cpu_problems_job_finds_the_gpu_nodes_covered_and_keeps_its_address_limit(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    assert add_problem.devices == (Device.CPU,)
    assert gpu_host.device_for(add_problem) is Device.CPU
    assert _report(add_problem, PROBE, gpu_host) == {"read": "", "address_limit": True}


def test_a_cuda_jobs_nodes_are_reached_without_the_address_limit(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    """CUDA reserves far more address space than it uses: a CUDA job goes without the limit."""
    on_gpu = _on(add_problem, Device.CPU, Device.CUDA)
    assert gpu_host.device_for(on_gpu) is Device.CUDA  # auto, with a GPU node
    assert _report(on_gpu, PROBE, gpu_host) == {"read": "00000000", "address_limit": False}


def test_a_job_the_policy_keeps_on_the_cpu_finds_the_nodes_covered(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    """A problem that allows CUDA, judged with JUDGE_DEVICE=cpu: its job is a CPU job."""
    on_gpu = _on(add_problem, Device.CPU, Device.CUDA)
    gpu_host.policy = DevicePolicy.CPU
    try:
        assert gpu_host.device_for(on_gpu) is Device.CPU
        assert _report(on_gpu, PROBE, gpu_host) == {"read": "", "address_limit": True}
    finally:
        gpu_host.policy = DevicePolicy.AUTO


def test_the_gpu_slot_is_held_by_every_cuda_job_and_by_no_cpu_job(
    gpu_host: SandboxLauncher,
) -> None:
    """One job per GPU: a CUDA job holds the slot until it is cleaned up; a CPU job never
    takes it. (One job at a time here: the fixture's pool has one worker.)"""
    slots = gpu_host.gpu_slots
    assert slots is not None
    limits = Limits(time_per_case_s=2.0, total_time_s=5.0, memory_mb=128)
    for device, held in ((Device.CPU, False), (Device.CUDA, True)):
        job = gpu_host.launch_tier("browser", limits, device=device)
        try:
            free = slots.acquire(blocking=False)
            if free:
                slots.release()
            assert free is not held, device
        finally:
            job.kill()
            job.cleanup()
        assert slots.acquire(blocking=False), device  # given back with the job
        slots.release()


def test_without_gpu_nodes_a_cuda_job_is_refused_and_no_slot_exists() -> None:
    launcher = SandboxLauncher(pool_size=0, preload=(), gpu_nodes=(), policy=DevicePolicy.CUDA)
    try:
        assert launcher.gpu_slots is None
        limits = Limits(time_per_case_s=2.0, total_time_s=5.0, memory_mb=128)
        with pytest.raises(ValueError, match="without GPU device nodes"):
            launcher.launch_tier("browser", limits, device=Device.CUDA)
    finally:
        launcher.close()


def test_the_policy_cuda_refuses_a_problem_on_a_host_without_gpu_nodes(
    add_problem: ProblemSpec,
) -> None:
    launcher = SandboxLauncher(pool_size=0, preload=(), gpu_nodes=(), policy=DevicePolicy.CUDA)
    try:
        with pytest.raises(DeviceUnavailable, match="this machine has none"):
            launcher.device_for(_on(add_problem, Device.CPU, Device.CUDA))
    finally:
        launcher.close()


def test_a_job_cannot_take_the_cover_off(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    got = _report(add_problem, UNCOVER, gpu_host)
    assert got["read"] == "", got
    assert all(r == -1 for r in got["results"]), got  # type: ignore[union-attr]


def test_a_hidden_device_must_be_a_dev_path() -> None:
    fields = {
        "cpu_s": 1, "memory_mb": 64, "max_processes": 1, "max_file_bytes": 1,
        "max_open_files": 8, "tmpfs_mb": 8, "address_space": True, "library": [],
    }  # fmt: skip
    assert JobLimits.from_json(fields | {"hidden_devices": ["/dev/nvidia0"]}).hidden_devices == (
        "/dev/nvidia0",
    )
    for bad in (["/etc/passwd"], ["/dev/../etc/passwd"], "/dev/nvidia0", [3]):
        with pytest.raises(ValueError, match="hidden devices must be a list of /dev paths"):
            JobLimits.from_json(fields | {"hidden_devices": bad})


def test_only_an_nvidia_gpus_node_makes_a_host_one_for_cuda() -> None:
    """A render node of another vendor's GPU is covered like any node, but CUDA cannot use
    it: such a host has no GPU slot, so auto keeps every job on the CPU."""
    from runner.launchers.sandbox import _gpu_slots

    assert _gpu_slots(("/dev/dri/renderD128",), stand_in=False) is None
    assert _gpu_slots((), stand_in=True) is None
    two = _gpu_slots(("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidiactl"), stand_in=False)
    assert two is not None
    assert two.acquire(blocking=False) and two.acquire(blocking=False)
    assert not two.acquire(blocking=False)
