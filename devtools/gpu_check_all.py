"""`make gpu-check`: everything that needs a GPU, in one prepared run of under 8 minutes.

    python -m devtools.gpu_check_all [--out build/gpu-check] [--budget 480]

On a machine with an NVIDIA GPU it first checks what it needs (this interpreter's torch
built with CUDA and seeing a device, bubblewrap, the test and model packages, the
checkpoints under models/, the driver's NVML library) and says plainly what is missing;
it never installs anything (the machine may have no network). Then, each step a child
process with its share of the time budget:

  sandbox        python -m runner.gpu_check: CUDA in a job, a memory hog, device memory
                 over the limit (the parent's NVML watcher: MLE), an endless kernel (TLE),
                 each followed by a normal job on the same device
  gpu-tests      every test marked `gpu` (python -m pytest -m gpu)
  problem <slug> each torch-tier problem's reference and wrong solutions, judged on CUDA
                 in the sandbox (judge check --sandbox, JUDGE_DEVICE=cuda); all problems
                 at once, one process each (a check of one problem took 4 minutes on a
                 2-core machine, mostly fresh sandbox workers importing torch)
  bandwidth      the GPU's median device-to-device copy (the CUDA speed ceiling's base)
  speed          decode-throughput's reference judged on CUDA (bench/bench_speed_reference.py)

and writes what it measured (timings, verdicts, bandwidth, scores) to gpu_check.json and
gpu_check.md under --out, for docs/BENCHMARKS.md. Without a GPU it prints SKIP and exits 0.
Exit codes: 0 all passed (or skipped), 1 a step failed, 2 a requirement is missing.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NODE_PATTERN = "/dev/nvidia[0-9]*"
BUDGET_S = 480.0  # the whole run, steps and requirements together
MIN_START_S = 5.0
EXIT_OK, EXIT_FAILED, EXIT_MISSING = 0, 1, 2
# Modules the steps import, and what needs each (named in the message when missing).
MODULES = {
    "torch": "every step",
    "numpy": "the sandbox's torch",
    "safetensors": "the checkpoints",
    "pytest": "the gpu-marked tests",
    "transformers": "the model tests' comparisons",
    "pyseccomp": "the sandbox's seccomp filter",
}
# What torch says about CUDA, asked in a child: this process never initialises CUDA, as
# the judge's parent never does.
TORCH_PROBE = (
    "import json, torch; print(json.dumps({'version': torch.__version__, "
    "'cuda': torch.version.cuda, 'available': torch.cuda.is_available(), "
    "'devices': torch.cuda.device_count(), "
    "'name': torch.cuda.get_device_name(0) if torch.cuda.is_available() else ''}))"
)


class StepState(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    TIMED_OUT = "timed out"
    NOT_RUN = "not run"  # the budget was spent before it could start


@dataclass(frozen=True, slots=True)
class Requirement:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its command, its share of the budget, and what it adds to the environment."""

    name: str
    command: tuple[str, ...]
    timeout_s: float
    env: dict[str, str] = field(default_factory=dict)
    group: str = ""  # steps of one group run at the same time, each with the group's timeout


@dataclass(frozen=True, slots=True)
class StepResult:
    name: str
    state: StepState
    seconds: float
    command: str
    figures: dict[str, object] = field(default_factory=dict)
    tail: str = ""  # the output's last lines, for a failure


def gpu_nodes() -> list[str]:
    return sorted(glob.glob(NODE_PATTERN))


# --- requirements ---


def requirements(python: str = sys.executable) -> list[Requirement]:
    """Everything the steps need, each with what was found or what is missing."""
    found = [_module(name, why) for name, why in MODULES.items()]
    found.append(_torch_cuda(python))
    bwrap = shutil.which("bwrap")
    found.append(Requirement("bubblewrap", bwrap is not None, bwrap or "bwrap is not on PATH"))
    models = REPO / "models"
    checkpoints = sorted(p.name for p in models.iterdir() if p.is_dir()) if models.is_dir() else []
    found.append(
        Requirement(
            "checkpoints",
            bool(checkpoints),
            ", ".join(checkpoints) or f"no checkpoint under {models} (make models, offline)",
        )
    )
    found.append(_nvml())
    return found


def _module(name: str, why: str) -> Requirement:
    try:
        present = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        present = False
    detail = "importable" if present else f"not importable by {sys.executable} (needed for {why})"
    return Requirement(name, present, detail)


def _torch_cuda(python: str) -> Requirement:
    try:
        done = subprocess.run(
            [python, "-c", TORCH_PROBE], capture_output=True, text=True, timeout=120, check=False
        )
        info = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return Requirement("torch with CUDA", False, "torch could not be asked about CUDA")
    if not info["cuda"]:
        detail = f"torch {info['version']} is a CPU-only build: install a CUDA build offline"
        return Requirement("torch with CUDA", False, detail)
    if not info["available"]:
        detail = f"torch {info['version']} (CUDA {info['cuda']}) sees no device"
        return Requirement("torch with CUDA", False, detail)
    detail = f"torch {info['version']}, CUDA {info['cuda']}, {info['devices']} x {info['name']}"
    return Requirement("torch with CUDA", True, detail)


def _nvml() -> Requirement:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as exc:
        detail = f"libnvidia-ml.so.1 not loadable ({exc}): device memory would not be watched"
        return Requirement("NVML", False, detail)
    return Requirement("NVML", True, "libnvidia-ml.so.1 loads")


# --- steps ---


def plan(python: str, budget_s: float, torch_slugs: Sequence[str]) -> list[Step]:
    """The steps in order, each with its share of `budget_s` (they add up to it)."""
    cuda = {"JUDGE_DEVICE": "cuda"}
    pytest_cmd = [python, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider", "tests"]
    if importlib.util.find_spec("xdist") is not None:
        pytest_cmd[4:4] = ["-n", "0"]
    shares = {"sandbox": 0.2, "gpu-tests": 0.15, "problems": 0.4, "bandwidth": 0.05, "speed": 0.2}
    problems = [
        Step(
            f"problem {slug}",
            (python, "judge.py", "check", "--sandbox", "--json", slug),
            shares["problems"] * budget_s,
            cuda,
            group="problems",
        )
        for slug in torch_slugs
    ]
    return [
        Step("sandbox", (python, "-m", "runner.gpu_check"), shares["sandbox"] * budget_s),
        Step("gpu-tests", tuple(pytest_cmd), shares["gpu-tests"] * budget_s),
        *problems,
        Step(
            "bandwidth",
            (python, "-c", "from devtools.gpu_check_all import bandwidth; bandwidth()"),
            shares["bandwidth"] * budget_s,
        ),
        Step(
            "speed",
            (python, "bench/bench_speed_reference.py", "--runs", "2"),
            shares["speed"] * budget_s,
            cuda,
        ),
    ]


def bandwidth() -> None:
    """The bandwidth step's body: the GPU's copy, as the CUDA speed ceiling measures it."""
    from judge.problem.device_copy import measure_device_copy_bandwidth

    rate = measure_device_copy_bandwidth()
    print(json.dumps({"copy_gb_s": round(rate / 1e9, 1), "ceiling_gb_s": round(4 * rate / 1e9)}))


def run_steps(steps: Sequence[Step], deadline: float) -> list[StepResult]:
    """Each step in order; the steps of one group at the same time (a thread each, waiting
    on its own child), the next step after the whole group."""
    results: list[StepResult] = []
    i = 0
    while i < len(steps):
        group = [steps[i]]
        while steps[i].group and i + len(group) < len(steps):
            if steps[i + len(group)].group != steps[i].group:
                break
            group.append(steps[i + len(group)])
        with ThreadPoolExecutor(max_workers=len(group)) as pool:
            results += pool.map(lambda step: run_step(step, deadline), group)
        i += len(group)
    return results


def run_step(step: Step, deadline: float) -> StepResult:
    """Run one step within its own timeout and what is left of the whole budget."""
    left = deadline - time.monotonic()
    shown = " ".join(step.command)
    if left < MIN_START_S:  # too little of the budget left for any step to finish
        return StepResult(step.name, StepState.NOT_RUN, 0.0, shown)
    timeout = min(step.timeout_s, left)
    started = time.monotonic()
    try:
        done = subprocess.run(
            step.command,
            cwd=REPO,
            env={**os.environ, **step.env},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = _text(exc.stdout) + _text(exc.stderr)
        return StepResult(step.name, StepState.TIMED_OUT, timeout, shown, tail=_tail(out))
    seconds = time.monotonic() - started
    state = StepState.PASSED if done.returncode == 0 else StepState.FAILED
    figures = FIGURES.get(step.group or step.name, _no_figures)(done.stdout)
    return StepResult(step.name, state, seconds, shown, figures, _tail(done.stdout + done.stderr))


def _text(data: str | bytes | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


# --- what each step's output says ---


def _no_figures(stdout: str) -> dict[str, object]:
    return {}


def sandbox_figures(stdout: str) -> dict[str, object]:
    """runner.gpu_check's lines: "ok   memory-hog   MLE" -> {"memory-hog": "MLE (ok)"}."""
    found: dict[str, object] = {}
    for line in stdout.splitlines():
        mark, _, rest = line.partition(" ")
        if mark in ("ok", "FAIL") and rest.strip():
            name, _, verdict = rest.strip().rpartition(" ")
            found[name.strip()] = f"{verdict} ({'ok' if mark == 'ok' else 'FAIL'})"
    return found


def problem_figures(stdout: str) -> dict[str, object]:
    """`judge check --json`: each problem's checks, as "check: ok" or "check: FAIL detail"."""
    try:
        results = json.loads(stdout)
    except ValueError:
        return {}
    figures: dict[str, object] = {}
    for problem in results if isinstance(results, list) else []:
        figures[str(problem.get("problem"))] = [
            f"{c.get('name')}: {'ok' if c.get('ok') else 'FAIL'} {c.get('detail', '')}".strip()
            for c in problem.get("checks", [])
        ]
    return figures


def last_json_figures(stdout: str) -> dict[str, object]:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def speed_figures(stdout: str) -> dict[str, object]:
    """bench_speed_reference's table, kept as its lines (median, quartiles per run)."""
    return {"table": [line for line in stdout.splitlines() if line.strip()]}


FIGURES: dict[str, Callable[[str], dict[str, object]]] = {
    "sandbox": sandbox_figures,
    "problems": problem_figures,
    "bandwidth": last_json_figures,
    "speed": speed_figures,
}


# --- the record ---


def write_record(out: Path, found: list[Requirement], results: list[StepResult]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "nodes": gpu_nodes(),
        "requirements": [asdict(r) for r in found],
        "steps": [{**asdict(r), "state": r.state.value} for r in results],
        "total_s": round(sum(r.seconds for r in results), 1),
    }
    (out / "gpu_check.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    (out / "gpu_check.md").write_text(markdown(found, results), encoding="utf-8")


def markdown(found: list[Requirement], results: list[StepResult]) -> str:
    """The run as a section to paste into docs/BENCHMARKS.md."""
    lines = ["## GPU check", "", "| requirement | found |", "|---|---|"]
    lines += [f"| {r.name} | {'' if r.ok else 'MISSING: '}{r.detail} |" for r in found]
    lines += ["", "| step | result | seconds |", "|---|---|---:|"]
    lines += [f"| {r.name} | {r.state.value} | {r.seconds:.1f} |" for r in results]
    total = sum(r.seconds for r in results)
    lines += ["", f"Total {total:.1f} s.", ""]
    for r in results:
        if r.figures:
            lines += [f"### {r.name}", "", "```", json.dumps(r.figures, indent=2), "```", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpu-check", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "gpu-check")
    parser.add_argument("--budget", type=float, default=BUDGET_S, help="seconds for all steps")
    args = parser.parse_args(list(argv or []))
    nodes = gpu_nodes()
    if not nodes:
        print("SKIP: no NVIDIA device nodes (/dev/nvidia0 ...); nothing here needs a GPU check")
        return EXIT_OK
    deadline = time.monotonic() + args.budget
    found = requirements()
    for r in found:
        print(f"{'ok     ' if r.ok else 'MISSING'} {r.name:<16} {r.detail}")
    missing = [r.name for r in found if not r.ok]
    if missing:
        write_record(args.out, found, [])
        print(f"missing: {', '.join(missing)}; nothing was run (nothing is installed from here)")
        return EXIT_MISSING
    results = run_steps(plan(sys.executable, args.budget, torch_slugs()), deadline)
    for result in results:
        print(f"{result.state.value:<9} {result.name:<28} {result.seconds:6.1f} s")
        if result.state is not StepState.PASSED and result.tail:
            print("  " + result.tail.replace("\n", "\n  "))
    write_record(args.out, found, results)
    print(f"figures: {args.out / 'gpu_check.md'}")
    passed = all(r.state is StepState.PASSED for r in results)
    return EXIT_OK if passed else EXIT_FAILED


def torch_slugs() -> list[str]:
    """Every torch-tier problem's slug (the ones that can run on CUDA)."""
    from judge.problem.problemset import ProblemSet

    return [p.slug for p in ProblemSet().all() if p.tier == "torch"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
