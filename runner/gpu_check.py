"""Check the GPU path of the sandbox on a machine with an NVIDIA GPU; skip cleanly without one.

    python -m runner.gpu_check        (as root, like the server; exit 0 = pass or skip)

What it checks, each through the real sandbox (warm worker, fork per job) and each
followed by a normal GPU job that must still pass:

  cuda-init      CUDA initialises inside a job (device nodes bound, no address-space
                 rlimit), computes on the device, and the warm worker never touched CUDA
  memory-hog     a job that allocates device memory until it fails gets MLE (or RE where
                 the core maps torch's OutOfMemoryError to RE); the memory comes back
  device-memory  a job that holds 4 GiB of device memory (its limit: memory_mb, 2 GiB, and
                 1 GiB for CUDA's own context) for a few seconds is killed by the parent's
                 NVML watcher: MLE
  endless-kernel a kernel that spins forever is killed by the wall limit (TLE) and the
                 device is usable by the next job

The runner process itself never initialises CUDA: it only looks for device nodes.
"""

from __future__ import annotations

import glob
import sys
import tempfile
import textwrap
from pathlib import Path

from judge.verdict import Verdict

NODE_PATTERN = "/dev/nvidia[0-9]*"

CASES = """
def public_cases():
    return [{"name": "task", "args": {}}]

def generated_cases(rng):
    return []

def run(sub, args):
    return sub.gpu_task()
"""
REFERENCE = """
import torch

def gpu_task():
    x = torch.arange(1000, dtype=torch.float64)
    return float((x * x).sum())
"""
TOML = """
slug = "gpu-check"
order = 1
chapter = "gpu"
tier = "torch"
devices = ["cuda"]
points = 1
tags = ["gpu"]
[title]
zh = "GPU 检查"
en = "GPU check"
[limits]
time_per_case_s = 20.0
total_time_s = 30.0
memory_mb = 2048
[submission]
names = ["gpu_task"]
[checker]
kind = "float"
rel_tol = 1e-9
"""
NORMAL = """
import torch

def gpu_task():
    assert torch.cuda.is_available(), "CUDA is not available inside the job"
    x = torch.arange(1000, dtype=torch.float64, device="cuda")
    return float((x * x).sum().cpu())
"""
MEMORY_HOG = """
import torch

def gpu_task():
    hoard = []
    while True:
        hoard.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))
"""
OVER_DEVICE_LIMIT = """
import time
import torch

def gpu_task():
    held = torch.ones(4 << 30, dtype=torch.uint8, device="cuda")  # over 2048 + 1024 MiB
    time.sleep(5.0)  # many of the watcher's polls
    return float(held[0])
"""
ENDLESS_KERNEL = """
import torch

def gpu_task():
    torch.cuda._sleep(1 << 62)  # a kernel that spins for longer than anyone waits
    torch.cuda.synchronize()
    return 0.0
"""
CHECKS = (
    ("cuda-init", NORMAL, {Verdict.AC}),
    ("memory-hog", MEMORY_HOG, {Verdict.MLE, Verdict.RE}),
    ("device-memory", OVER_DEVICE_LIMIT, {Verdict.MLE}),
    ("endless-kernel", ENDLESS_KERNEL, {Verdict.TLE}),
)


def gpu_nodes() -> list[str]:
    return sorted(glob.glob(NODE_PATTERN))


def make_problem(root: Path) -> Path:
    folder = root / "gpu-check"
    folder.mkdir(parents=True)
    files = {
        "problem.toml": TOML,
        "cases.py": CASES,
        "reference.py": REFERENCE,
        "starter.py": "def gpu_task():\n    raise NotImplementedError\n",
        "statement.zh.md": "# GPU 检查\n",
        "statement.en.md": "# GPU check\n",
    }
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return folder


def run_checks() -> list[tuple[str, str, bool]]:
    """(check, verdict, passed) for each check and the normal job after it."""
    from judge.problem.problemset import ProblemSet
    from runner.api import Runner

    results = []
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        make_problem(Path(tmp))
        problem = ProblemSet(Path(tmp)).get("gpu-check")
        with Runner(pool_size=1, problems_root=Path(tmp)) as runner:
            for name, source, allowed in CHECKS:
                verdict = runner.judge(problem, source).verdict
                results.append((name, verdict.value, verdict in allowed))
                after = runner.judge(problem, NORMAL).verdict
                results.append((f"{name}: next job", after.value, after is Verdict.AC))
    return results


def main(argv: list[str] | None = None) -> int:
    nodes = gpu_nodes()
    if not nodes:
        print("SKIP: no NVIDIA device nodes (/dev/nvidia0 ...); the GPU path was not checked")
        return 0
    print(f"GPU device nodes: {' '.join(nodes)}")
    from runner.device_memory import watch_status
    from runner.nvml import open_nvml

    print(f"GPU device memory: {watch_status(open_nvml())}")
    results = run_checks()
    for name, verdict, passed in results:
        print(f"{'ok  ' if passed else 'FAIL'} {name:<28} {verdict}")
    return 0 if all(passed for _, _, passed in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
