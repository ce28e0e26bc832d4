"""The one place the platform calls the judge core: loading problems, checking source,
judging, and reading a report into the columns the platform stores.

The seam is typed: a judge takes a `ProblemSpec` and returns the core's `Report`. A dict
appears only where a process boundary is crossed (the unsafe-local pool's processes),
and is decoded once there with `Report.from_dict`, and for a learner's own input, whose
result is stored and shown exactly as `CustomRun.to_dict` writes it."""

from __future__ import annotations

import importlib
import json
import logging
import math
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from judge import messages
from judge.errors import SourceError, UnknownProblem
from judge.grading.report import Report
from judge.kinds.registry import kind_of
from judge.problem.cases import PUBLIC_SEED
from judge.problem.device import DevicePolicy
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.problem.speed_spec import SpeedState
from judge.run import phase
from judge.run.custom_run import CustomRun, run_custom
from judge.run.judge_source import internal_error
from judge.run.launch import ChildUser
from judge.run.source_check import MAX_SOURCE_BYTES, validate_source
from judge.verdict import Verdict
from runner.launchers.unsafe_local import PoolLauncher, child_user, kill_running
from web.boards import device_class as devices
from web.i18n import say
from web.judging.server_watch import watch_server

__all__ = [
    "Judge",
    "JudgedRun",
    "ProblemSet",
    "UnknownProblem",
    "judge",
    "judge_public",
    "make_judge",
    "try_input",
]
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JudgedRun:
    """A judged run, as stored on a submission row (the core's Report, in columns)."""

    verdict: Verdict
    version: str
    points: int
    passed: int
    total: int
    time_ms: float | None
    report_json: str
    # A speed problem's accepted run (the report's `speed`): the score (the median rate),
    # the IQR as spread, the quartiles and the unit; None on every other run.
    metric: float | None = None
    metric_spread: float | None = None
    hardware: str | None = None
    metric_q1: float | None = None
    metric_q3: float | None = None
    metric_unit: str | None = None
    # The board the speed ranks on: "cpu" or "gpu:<model>" (web/boards/device_class.py).
    device_class: str = devices.CPU


def load_problems(root: Path) -> ProblemSet:
    return ProblemSet(root)


def source_problem(code: str) -> str | None:
    """Why this source may not be stored or run (too large, NUL bytes, non-UTF-8, empty),
    said in the request's language, or None. The core's validate_source has the last word:
    a rule it gains later is reported in its own (English) words."""
    data = code.encode("utf-8", "surrogatepass")
    if len(data) > MAX_SOURCE_BYTES:
        return say("err_code_size", size=f"{len(data):,}", limit=f"{MAX_SOURCE_BYTES:,}")
    if "\0" in code:
        return say("err_code_nul", offset=data.find(b"\0"))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return say("err_code_utf8", at=exc.start)
    if not code.strip():
        return say("err_code_empty")
    try:
        validate_source(code)
    except SourceError as exc:
        return str(exc)
    return None


def _launcher_factory(spec: str) -> Any:
    """The `module:callable` named in the config that builds a launcher, or None."""
    if not spec:
        return None
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"launcher {spec!r} must look like 'package.module:factory'")
    return getattr(importlib.import_module(module_name), attr)


# Where the judging has got to (judge.run.phase), as it moves: the learner's page shows it.
Progress = phase.Progress


class Judge(Protocol):
    """Runs one submission and returns the core's report."""

    def run(
        self, problem: ProblemSpec, code: str, seed: int, progress: Progress | None = None
    ) -> Report: ...

    def try_input(self, problem: ProblemSpec, args: object, code: str | None) -> dict[str, Any]:
        """A learner's own input (judge.run.custom_run): its learner's view, JSON data."""
        ...

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        """A hidden seed whose reference answers this judge already has (runner.seedstock),
        or None: a submission's first judging may take it as its seed."""
        ...

    def close(self) -> None: ...


class LocalJudge:
    """The problem's kind's judge, called in a small pool of judging processes (unsafe-local).

    Not in the server's own threads: starting and ending a child opens and closes pipes,
    and a file descriptor closed twice there could close a socket or the database file
    that another thread has just been given the same number for. In a process that does
    nothing else (its one other thread only waits for the server to exit), such a slip
    cannot reach the server. `user`: who runs submitted code (runner.launchers.unsafe_local)."""

    def __init__(
        self,
        launcher_spec: str,
        workers: int,
        user: ChildUser | None = None,
        device: DevicePolicy = DevicePolicy.AUTO,
        speed_spread_limit: float | None = None,
    ) -> None:
        _launcher_factory(launcher_spec)  # a bad setting fails at start-up, not per job
        self._spec = launcher_spec
        self._workers = workers
        self.user = user
        self.device = device
        self.speed_spread_limit = speed_spread_limit
        self._lock = threading.Lock()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=multiprocessing.get_context("spawn"),  # never fork a threaded server
            initializer=_start_worker,
            initargs=(self._spec, self.user, os.getpid(), self.device),
        )

    def run(
        self, problem: ProblemSpec, code: str, seed: int, progress: Progress | None = None
    ) -> Report:
        # No progress from here: the judging process is another process (unsafe-local is
        # for development; the sandbox judge reports progress).
        pool = self._pool
        try:
            # The pool process sends the admin view as plain data; decoded once, here.
            limit = self.speed_spread_limit
            done = pool.submit(_judge_in_worker, problem, code, seed, limit)
            return Report.from_dict(done.result())
        except BrokenProcessPool:
            with self._lock:  # a worker died: replace the pool; the job is retried as IE
                if self._pool is pool:
                    self._pool = self._new_pool()
            raise

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        return None  # each judging process computes its references itself

    def try_input(self, problem: ProblemSpec, args: object, code: str | None) -> dict[str, Any]:
        pool = self._pool
        try:
            return pool.submit(_try_in_worker, problem, args, code).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = self._new_pool()
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


_WORKER_LAUNCHER: Any = None


def _start_worker(
    launcher_spec: str, user: ChildUser | None, server_pid: int, device: DevicePolicy
) -> None:
    global _WORKER_LAUNCHER
    watch_server(server_pid, kill_running)
    factory = _launcher_factory(launcher_spec)
    _WORKER_LAUNCHER = factory() if factory is not None else PoolLauncher(user, device)


def _judge_in_worker(
    problem: ProblemSpec, code: str, seed: int, spread_limit: float | None
) -> dict[str, Any]:
    from judge.run.judge_source import TrustedInputs

    trusted = TrustedInputs()
    trusted.spread_limit = spread_limit
    kind = kind_of(problem)
    report = kind.judge(problem, code, seed=seed, launcher=_WORKER_LAUNCHER, trusted=trusted)
    return dict(report.to_dict(admin=True))


def _try_in_worker(problem: ProblemSpec, args: object, code: str | None) -> dict[str, Any]:
    return run_custom(problem, args, code, _WORKER_LAUNCHER).to_dict()


class SandboxJudge:
    """The runner's warm sandboxed workers and reference cache (runner.api.Runner)."""

    def __init__(
        self,
        workers: int,
        problems_dir: Path,
        ready_seeds: int = 0,
        device: DevicePolicy = DevicePolicy.AUTO,
        speed_spread_limit: float | None = None,
    ) -> None:
        from runner.api import Runner  # only servers that ask for the sandbox need it

        self.runner = Runner(
            pool_size=workers,
            problems_root=problems_dir,
            ready_seeds=ready_seeds,
            device=device,
            speed_spread_limit=speed_spread_limit,
        )

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        return self.runner.ready_seed(problem)

    def seeds_ready(self, problem: ProblemSpec) -> int:
        """Hidden seeds the stock holds ready for `problem` (benchmarks wait on it)."""
        return self.runner.stock.ready(problem)

    def run(
        self, problem: ProblemSpec, code: str, seed: int, progress: Progress | None = None
    ) -> Report:
        return self.runner.judge(problem, code, seed=seed, progress=progress)

    def try_input(self, problem: ProblemSpec, args: object, code: str | None) -> dict[str, Any]:
        return self.runner.try_input(problem, args, code).to_dict()

    def close(self) -> None:
        self.runner.close()


BACKENDS = ("sandbox", "unsafe-local")
UNSAFE_LOCAL = "unsafe-local"


def make_judge(
    backend: str,
    *,
    launcher: str,
    workers: int,
    problems_dir: Path,
    ready_seeds: int = 0,
    device: DevicePolicy = DevicePolicy.AUTO,
    own_process: bool = False,
    speed_spread_limit: float | None = None,
) -> Judge:
    """The judge of `backend`; `device` (JUDGE_DEVICE) chooses each job's device.
    `own_process`: the sandbox's runner in a child process (web.judging.judge_process), so
    that this process never loads what judging loads (a web server's); a judging worker
    holds it itself. (unsafe-local always judges in a pool of processes of its own.)"""
    if backend == "sandbox" and own_process:
        from web.judging.judge_process import JudgeProcess, RunnerSettings

        settings = RunnerSettings(workers, problems_dir, ready_seeds, device, speed_spread_limit)
        return JudgeProcess(settings)
    if backend == "sandbox":
        return SandboxJudge(workers, problems_dir, ready_seeds, device, speed_spread_limit)
    if backend == UNSAFE_LOCAL:
        return LocalJudge(launcher, workers, child_user(), device, speed_spread_limit)
    if backend == "local":
        raise ValueError(
            "judge backend 'local' is now called 'unsafe-local' (submissions run without a "
            "sandbox; loopback only); the default is 'sandbox'"
        )
    raise ValueError(f"judge backend {backend!r} must be one of {', '.join(BACKENDS)}")


def judge(
    engine: Judge, problem: ProblemSpec, code: str, *, seed: int, progress: Progress | None = None
) -> JudgedRun:
    try:
        report = engine.run(problem, code, seed, progress)
    except SourceError as exc:
        # Checked before storing, so only a changed limit gets here; the source is at fault.
        report = _source_rejected(problem, exc, "secret")
    return judged_run(problem.points, report)


def judge_public(
    engine: Judge, problem: ProblemSpec, code: str, progress: Progress | None = None
) -> Report:
    """A Run on the server: the public cases and the public seed's generated ones, exactly
    what the browser's Run judges (every case public, got/expected shown). Never raises:
    a failure of the judge is an IE report (no retry: nothing is stored to retry)."""
    try:
        return engine.run(problem, code, PUBLIC_SEED, progress)
    except SourceError as exc:
        return _source_rejected(problem, exc, "public")
    except Exception as exc:
        log.exception("public run of %s failed", problem.slug)
        return internal_error(problem, PUBLIC_SEED, f"the judge failed: {type(exc).__name__}")


def try_input(
    engine: Judge, problem: ProblemSpec, args: object, code: str | None
) -> dict[str, Any]:
    """A learner's own input on the server ("Try your own input"). Never raises: a failure
    of the judge is said as one (no retry: nothing is stored to retry)."""
    try:
        return engine.try_input(problem, args, code)
    except Exception:
        log.exception("a custom input on %s failed", problem.slug)
        failed = messages.say("input.judge_failed")
        return CustomRun(args, reference_failure=failed).to_dict()


def _source_rejected(problem: ProblemSpec, exc: SourceError, seed: str) -> Report:
    return Report(
        problem=problem.slug,
        version=problem.version,
        verdict=Verdict.CE,
        score=0,
        cases=(),
        compile_error={"kind": "source", "line": None, "message": str(exc)},
        seed=seed,
    )


def judged_run(max_points: int, report: Report) -> JudgedRun:
    """The columns a submission row stores for `report`."""
    data = report.to_dict(admin=True)
    speed = speed_columns(data.get("speed")) if report.verdict is Verdict.AC else None
    run = JudgedRun(
        verdict=report.verdict,
        version=report.version,
        # The core scores a run in points (the problem's points on AC, else 0); clamped so
        # a report can never award more than the problem is worth.
        points=max(0, min(max_points, report.score)) if report.verdict is Verdict.AC else 0,
        passed=report.passed,
        total=len(report.cases),
        time_ms=report.time_ms,
        report_json=json.dumps(data, ensure_ascii=False, allow_nan=False),
        hardware=_hardware(report.environment),
        device_class=_device_class(data.get("speed"), report.environment),
    )
    return run if speed is None else replace(run, **speed)


def _device_class(speed: object, env: dict[str, str]) -> str:
    hardware = speed.get("hardware") if isinstance(speed, dict) else None
    known = hardware if isinstance(hardware, dict) else None
    return devices.of_run(known, env.get("device", ""))


def _hardware(env: dict[str, str]) -> str | None:
    # judge.grading.environment names the job's device ("cpu" or "cuda") on torch-tier runs only.
    return env.get("device", "")[:200] or None


def speed_columns(speed: object) -> dict[str, Any] | None:
    """A report's `speed` ({"unit", "value", "q1", "q3", "hardware", ...}; judge.problem.speed_spec)
    as JudgedRun's fields, or None when there is none or it does not hold together (then
    the run is stored without a speed rather than with a wrong one)."""
    if not isinstance(speed, dict):
        return None
    if speed.get("state", SpeedState.SCORED.value) != SpeedState.SCORED.value:
        return None  # timed while the machine was too busy: the report says so, no board
    numbers = [speed.get(k) for k in ("value", "q1", "q3")]
    if not all(isinstance(n, int | float) and math.isfinite(n) for n in numbers):
        log.warning("a report's speed has no finite value and quartiles: %.200r", speed)
        return None
    value, q1, q3 = (float(n) for n in numbers)  # type: ignore[arg-type]
    unit = speed.get("unit")
    if not (0 <= q1 <= value <= q3) or not isinstance(unit, str) or not unit:
        log.warning("a report's speed does not hold together: %.200r", speed)
        return None
    columns: dict[str, Any] = {
        "metric": value,
        "metric_spread": q3 - q1,
        "metric_q1": q1,
        "metric_q3": q3,
        "metric_unit": unit[:32],
    }
    hardware = speed.get("hardware")
    if isinstance(hardware, dict) and hardware:  # else the report's environment names it
        columns["hardware"] = hardware_text(hardware)
    return columns


def hardware_text(hardware: dict[str, Any]) -> str | None:
    """A speed's hardware in a few words for a board's column: the GPU and its driver, or
    the CPU model and its thread count, then torch ("AMD EPYC 9654 · 1 thread · torch 2.13.0",
    "NVIDIA H200 · driver 550.54.15 · torch 2.13.0")."""
    device = str(hardware.get("device") or "cpu")
    if device == "cuda" and hardware.get("gpu"):
        parts = [str(hardware["gpu"])]
        if hardware.get("driver"):
            parts.append(f"driver {hardware['driver']}")
    else:
        parts = [device] if device != "cpu" else [str(hardware.get("cpu") or "cpu")]
    threads = str(hardware.get("threads") or "")
    if device == "cpu" and threads:
        parts.append(f"{threads} thread" if threads == "1" else f"{threads} threads")
    if hardware.get("torch"):
        parts.append(f"torch {hardware['torch']}")
    return " · ".join(parts)[:200]
