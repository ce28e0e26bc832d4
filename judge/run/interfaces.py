"""The contract between the judging core and whatever starts child processes.

Only type annotations refer to these, so the run path never imports `typing` for them
(it costs a few milliseconds on every `judge run`).
"""

from __future__ import annotations

from typing import Protocol

from judge.grading.outcome import ExitInfo
from judge.problem.device import Device
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec


class ChildHandle(Protocol):
    request_fd: int  # the parent writes request frames here
    result_fd: int  # the parent reads result frames here
    stdout_fd: int
    stderr_fd: int

    def close_requests(self) -> None:
        """Close the request channel so a well-behaved child sees end of input; idempotent.

        The handle owns its descriptors: only it closes them, once, so a closed number that
        another thread has since reused is never closed again."""

    def kill(self) -> None:
        """SIGKILL every process of the job; idempotent."""

    def wait(self, timeout: float) -> ExitInfo:
        """Reap the child (after it exited or was killed)."""

    def cleanup(self) -> None:
        """Remove whatever the job left (files, cgroups); idempotent."""

    def cpu_seconds(self) -> float | None:
        """CPU time the job has used so far, as the kernel counts it; None where unknown."""

    def pause(self) -> None:
        """Stop every process of the job (SIGSTOP: it cannot be caught) until resume()."""

    def resume(self) -> None:
        """Let the processes pause() stopped run again; harmless if none were stopped."""


class Launcher(Protocol):
    name: str  # shown in reports: "local" or "sandbox"

    @property
    def cpu_accounting(self) -> str:
        """How its handles' cpu_seconds() count, named in a report under a CPU rule: e.g.
        "the job's cgroup (v2)" or "the child's session, walked in /proc"."""

    def device_for(self, problem: ProblemSpec) -> Device:
        """The device a job of `problem` runs on here, from the launcher's policy and the
        host's GPU nodes (judge/problem/device.py choose_device); DeviceUnavailable, with a
        sentence for the reader, where none fits."""

    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> ChildHandle:
        """A job of `problem` on `device` (device_for's choice, made by the parent): only a
        CUDA job may reach a GPU and go without the address-space limit."""

    def launch_trusted(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> ChildHandle:
        """A child for trusted code (a speed problem's reference, timed in turn with a job:
        judge/run/pacer.py), placed as this launcher's jobs are for the CPU scheduler (a
        session, a cgroup of its own), so that on a busy machine the kernel gives it the
        share of the CPU it gives a job; never sandboxed, never sharing a job's slot."""
        ...
