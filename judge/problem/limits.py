"""Resource limits for one run of a submission."""

from __future__ import annotations

from enum import Enum

from judge.record import record


@record
class Limits:
    time_per_case_s: float
    total_time_s: float
    memory_mb: int
    output_bytes: int = 1 << 20  # cap per stream (stdout, stderr)
    max_processes: int = 64
    max_file_bytes: int = 16 << 20
    max_open_files: int = 256
    # problem.toml's [limits] device_memory_mb: a GPU job's device memory (None: memory_mb).
    device_memory_mb: int | None = None

    @property
    def device_limit_mb(self) -> int:
        """The device memory a GPU job may hold (runner/device_memory.py enforces it)."""
        return self.memory_mb if self.device_memory_mb is None else self.device_memory_mb

    def to_dict(self) -> dict[str, object]:
        return {
            "time_per_case_s": self.time_per_case_s,
            "total_time_s": self.total_time_s,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
        }


@record
class CpuRule:
    """problem.toml's `cpu_vs_reference` and `cpu_slack_s`: a case marked `calibrated` may use
    at most factor x the CPU time the reference used on that same case, on the same kind
    of worker, plus slack_s. The kernel counts both (judge/run/cpu_clock.py); the submission
    cannot forge either."""

    factor: float
    slack_s: float

    def limit(self, reference_s: float) -> float:
        return self.factor * reference_s + self.slack_s


class RuleClock(str, Enum):
    """What a calibrated case's allowance counts. The CPU: the kernel's count of the job's
    CPU time (a CPU job). The wall clock: the parent's time from request to answer (a CUDA
    job, whose work on the GPU the kernel's CPU count never sees: a loop that recomputes the
    prefix shows as GPU time, not CPU time). Either way the reference is measured the same
    way on the same device (judge/run/calibration.py), with the same factor and slack."""

    CPU = "cpu"
    WALL = "wall"


_WALL_HIDDEN = "took more time than this case allows on the GPU (a multiple of the reference's)"


@record
class CpuAllowance:
    """One calibrated case's cap: the rule applied to what the reference used on it, counted
    by `clock` (CPU time on the CPU, wall time on CUDA)."""

    rule: CpuRule
    reference_s: float
    clock: RuleClock = RuleClock.CPU

    @property
    def seconds(self) -> float:
        return self.rule.limit(self.reference_s)

    def describe(self, public: bool) -> str:
        """Why a case was stopped (judge.messages' case.cpu_public or case.wall_public, as
        English text)."""
        if self.clock is RuleClock.WALL:
            if not public:
                return _WALL_HIDDEN
            return (
                f"stopped at {self.seconds:.2f} s of wall time on the GPU, this case's "
                f"allowance; the reference took {self.reference_s:.2f} s (the allowance is "
                f"{self.rule.factor:g} x that + {self.rule.slack_s:g} s)"
            )
        if not public:  # the reference's time on a hidden case would say how large it is
            return "used more CPU time than this case allows (a multiple of the reference's)"
        return (
            f"stopped at {self.seconds:.2f} s of CPU time, this case's allowance; the reference "
            f"used {self.reference_s:.2f} s (the allowance is {self.rule.factor:g} x that "
            f"+ {self.rule.slack_s:g} s)"
        )
