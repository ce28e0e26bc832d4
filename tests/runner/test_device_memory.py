"""A GPU job's device memory is bounded from outside the job: the parent reads it through
the driver (a fake reader here: this machine has no GPU) and kills the job over its limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from judge.grading.case_grading import crash_verdict
from judge.grading.outcome import DeviceMemoryOverrun, ExitInfo
from judge.problem.device import Device
from judge.problem.spec import ProblemSpec
from judge.record import replace
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.device_memory import CUDA_CONTEXT_MB, DeviceMemoryWatcher, WatchState
from runner.launchers.sandbox import SandboxLauncher
from runner.nvml import NvmlError, NvmlMissing, open_nvml

MiB = 1 << 20
JOB = (101, 102)  # the job's processes (host pids)
OTHER = 900  # a process of someone else on the same device


class FakeReader:
    """The driver's per-process figures, as the test sets them."""

    def __init__(self, used: dict[int, int]) -> None:
        self.used = used
        self.reads = 0

    def used_bytes_by_pid(self) -> dict[int, int]:
        self.reads += 1
        return dict(self.used)


class BrokenReader:
    def used_bytes_by_pid(self) -> dict[int, int]:
        raise NvmlError("nvmlDeviceGetComputeRunningProcesses_v3 failed with NVML error 999")


def _watcher(reader: object, limit_mb: int = 100) -> tuple[DeviceMemoryWatcher, list[str]]:
    killed: list[str] = []
    watcher = DeviceMemoryWatcher(
        reader,  # type: ignore[arg-type]
        limit_mb,
        lambda: JOB,
        lambda: killed.append("SIGKILL"),
        poll_s=0.005,
    )
    return watcher, killed


def test_a_job_holding_more_device_memory_than_its_limit_is_killed_and_the_figures_kept() -> None:
    watcher, killed = _watcher(FakeReader({101: 80 * MiB, 102: 40 * MiB}))
    assert watcher.check() is WatchState.EXCEEDED
    assert killed == ["SIGKILL"]
    assert watcher.overrun == DeviceMemoryOverrun(used_mb=120, limit_mb=100)
    watcher.check()  # once is enough: the job is already being killed
    assert killed == ["SIGKILL"]


def test_a_job_under_its_limit_is_left_alone() -> None:
    watcher, killed = _watcher(FakeReader({101: 60 * MiB, 102: 39 * MiB}))
    assert watcher.check() is WatchState.WATCHING
    watcher.stop()
    assert (watcher.state, killed, watcher.overrun) == (WatchState.STOPPED, [], None)


def test_memory_another_process_holds_does_not_count_against_the_job() -> None:
    watcher, killed = _watcher(FakeReader({101: 10 * MiB, OTHER: 10_000 * MiB}))
    assert watcher.check() is WatchState.WATCHING
    assert killed == []


def test_a_driver_that_stops_answering_ends_the_watch_without_killing_the_job() -> None:
    watcher, killed = _watcher(BrokenReader())
    assert watcher.check() is WatchState.UNREADABLE
    assert killed == [] and "NVML error 999" in watcher.error


def test_the_watch_thread_kills_a_job_that_grows_past_its_limit_while_it_runs() -> None:
    reader = FakeReader({101: 10 * MiB})
    watcher, killed = _watcher(reader)
    watcher.start()
    time.sleep(0.03)
    assert killed == []
    reader.used[101] = 500 * MiB
    deadline = time.monotonic() + 5
    while not killed and time.monotonic() < deadline:
        time.sleep(0.005)
    watcher.stop()
    assert killed == ["SIGKILL"] and watcher.state is WatchState.EXCEEDED
    assert watcher.overrun == DeviceMemoryOverrun(used_mb=500, limit_mb=100)


def test_stopping_the_watch_ends_its_thread() -> None:
    watcher, _ = _watcher(FakeReader({}))
    watcher.start()
    watcher.stop()
    assert not any(t.name == "device-memory" and t.is_alive() for t in threading.enumerate())


def test_a_job_killed_for_device_memory_is_mle_with_both_figures_in_both_languages() -> None:
    info = ExitInfo(None, 9, device_memory=DeviceMemoryOverrun(used_mb=3072, limit_mb=2048))
    verdict, message = crash_verdict(info)
    assert verdict is Verdict.MLE
    assert message.render("en") == (
        "killed for holding 3072 MiB of GPU memory; this problem allows 2048 MiB, "
        "CUDA's own context included"
    )
    assert message.render("zh") == (
        "占用了 3072 MiB 显存，超出本题允许的 2048 MiB（含 CUDA 自身上下文），进程被终止"
    )


@pytest.mark.parametrize(("stated", "expected"), [(None, 512), (4096, 4096)])
def test_the_device_limit_is_memory_mb_unless_the_problem_states_its_own(
    stated: int | None, expected: int
) -> None:
    from judge.problem.limits import Limits

    limits = Limits(1.0, 2.0, 512, device_memory_mb=stated)
    assert limits.device_limit_mb == expected


# --- through the real sandbox: a launcher whose GPU is a stand-in node and whose driver
# is a fake that says every process on the machine holds the same device memory ---

SLOW_ADD = """\
import time

def add(a, b):
    time.sleep(0.3)  # several of the watcher's polls
    return a + b
"""


class EveryProcessHolds:
    """The driver's answer if every process on the host held `mib` MiB of device memory."""

    def __init__(self, mib: int) -> None:
        self.nbytes = mib * MiB

    def used_bytes_by_pid(self) -> dict[int, int]:
        import os

        return {int(p): self.nbytes for p in os.listdir("/proc") if p.isdigit()}


@pytest.fixture(scope="module")
def gpu_launcher() -> Iterator[SandboxLauncher]:
    # /dev/full stands in for a GPU's node: the launcher then takes this host for a GPU host.
    launcher = SandboxLauncher(pool_size=1, preload=(), gpu_nodes=("/dev/full",))
    yield launcher
    launcher.close()


def _on_gpu(problem: ProblemSpec, device_memory_mb: int) -> ProblemSpec:
    limits = replace(problem.limits, device_memory_mb=device_memory_mb)
    return replace(problem, devices=(Device.CUDA,), limits=limits)


def test_a_sandboxed_gpu_job_over_its_device_memory_is_killed_and_mle(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    gpu_launcher.device_memory = EveryProcessHolds(256 + CUDA_CONTEXT_MB + 44)
    report = judge_source(_on_gpu(add_problem, 256), SLOW_ADD, launcher=gpu_launcher)
    assert report.verdict is Verdict.MLE, report.to_dict()
    failed = next(c.to_dict() for c in report.cases if c.verdict is Verdict.MLE)
    assert failed["message_key"] == "case.device_memory", failed
    args = failed["message_args"]
    assert args["limit"] == 256 + CUDA_CONTEXT_MB and args["used"] >= 1324, failed


def test_cudas_own_context_does_not_count_against_a_problems_limit(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    """A problem's 256 MiB is the job's data: a job holding 600 MiB, most of it the CUDA
    context every process that uses the GPU gets, is within it."""
    gpu_launcher.device_memory = EveryProcessHolds(600)
    report = judge_source(_on_gpu(add_problem, 256), SLOW_ADD, launcher=gpu_launcher)
    assert report.verdict is Verdict.AC, report.to_dict()


def test_a_sandboxed_gpu_job_under_its_device_memory_is_untouched(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    gpu_launcher.device_memory = EveryProcessHolds(1)
    report = judge_source(_on_gpu(add_problem, 256), SLOW_ADD, launcher=gpu_launcher)
    assert report.verdict is Verdict.AC, report.to_dict()


def test_a_cpu_job_on_a_gpu_host_is_not_watched(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    gpu_launcher.device_memory = EveryProcessHolds(10_000)
    report = judge_source(add_problem, SLOW_ADD, launcher=gpu_launcher)
    assert report.verdict is Verdict.AC, report.to_dict()


def test_without_the_driver_library_no_watcher_is_made_and_the_doctor_line_says_why(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    missing = open_nvml("libnvidia-ml-absent.so.1")
    assert isinstance(missing, NvmlMissing) and "could not be loaded" in missing.reason
    gpu_launcher.device_memory = missing
    assert gpu_launcher.device_memory_watch.startswith("not watched: libnvidia-ml-absent.so.1")
    handle = gpu_launcher.launch(_on_gpu(add_problem, 256), add_problem.limits, Device.CUDA)
    try:
        assert handle.job.device_watcher is None
    finally:
        handle.kill()
        handle.cleanup()


def test_a_cuda_jobs_report_says_how_its_device_memory_was_bounded(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    """The report of a job on CUDA says whether the watcher was there, and why not."""
    gpu_launcher.device_memory = EveryProcessHolds(1)
    report = judge_source(_on_gpu(add_problem, 256), SLOW_ADD, launcher=gpu_launcher)
    assert report.environment["device_memory"].startswith("watched through NVML")
    gpu_launcher.device_memory = open_nvml("libnvidia-ml-absent.so.1")
    report = judge_source(_on_gpu(add_problem, 256), SLOW_ADD, launcher=gpu_launcher)
    said = report.environment["device_memory"]
    assert said.startswith("not watched: libnvidia-ml-absent.so.1 could not be loaded"), said


def test_a_cpu_jobs_report_says_nothing_of_device_memory(
    add_problem: ProblemSpec, gpu_launcher: SandboxLauncher
) -> None:
    report = judge_source(add_problem, SLOW_ADD, launcher=gpu_launcher)
    assert "device_memory" not in report.environment
