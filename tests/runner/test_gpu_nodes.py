"""On a GPU host, only a job whose problem uses the GPU (device = "cuda") reaches its device
nodes; every other job finds them covered by /dev/null and keeps the address-space limit.

Regression (issue 20's second red-team pass): the sandbox bound /dev/nvidia* into every job
on a GPU host, so greedy-generate's recompute or batched-decode's one-at-a-time loop could
have run on CUDA, where the CPU rule counts nothing. This machine has no GPU: the tests give
the launcher a stand-in node, /dev/full (which reads as zeros; /dev/null reads as empty).
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Iterator

import pytest

from judge.problem.spec import ProblemSpec
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
    """A launcher that takes /dev/full for the GPU's one device node."""
    launcher = SandboxLauncher(pool_size=1, preload=())
    launcher.layout = dataclasses.replace(launcher.layout, gpu_nodes=(STAND_IN,))
    yield launcher
    launcher.close()


def _report(problem: ProblemSpec, source: str, launcher: SandboxLauncher) -> dict[str, object]:
    report = judge_source(problem, textwrap.dedent(source), launcher=launcher)
    assert report.verdict is Verdict.AC, report.to_dict()
    line = next(x for x in report.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line.removeprefix("REPORT "))  # type: ignore[no-any-return]


def test_a_cpu_problems_job_finds_the_gpu_nodes_covered_and_keeps_its_address_limit(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    assert add_problem.device == "cpu"
    assert _report(add_problem, PROBE, gpu_host) == {"read": "", "address_limit": True}


def test_a_gpu_problems_job_reaches_the_nodes_without_the_address_limit(
    add_problem: ProblemSpec, gpu_host: SandboxLauncher
) -> None:
    """CUDA reserves far more address space than it uses: a GPU job goes without the limit."""
    on_gpu = dataclasses.replace(add_problem, device="cuda")
    assert _report(on_gpu, PROBE, gpu_host) == {"read": "00000000", "address_limit": False}


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
