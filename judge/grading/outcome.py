"""What happened on one case before any checking, and how a child process ended."""

from __future__ import annotations

from enum import Enum

from judge.record import record, replace


class OutcomeKind(str, Enum):
    """What happened on one case; (str, Enum) like Verdict, so str() is the value everywhere."""

    RESULT = "result"  # an observation arrived; a checker decides
    ERROR = "error"  # the submission raised
    BAD_OBSERVATION = "bad_observation"  # it returned something that is not plain data
    TIMEOUT = "timeout"
    CRASH = "crash"  # the process ended before answering
    PROTOCOL = "protocol"  # the channel carried something that is not a valid answer
    OUTPUT_LIMIT = "output_limit"  # printed or returned more than allowed
    SKIPPED = "skipped"  # not run: an earlier case ended the process (or failed: NOT_TIMED)

    def __str__(self) -> str:
        return self.value


# A SKIPPED outcome's message when a speed problem's repetition was not timed because an
# earlier case had already failed: the run has no score, so timing it would be wasted time.
NOT_TIMED = "not timed"


@record
class DeviceMemoryOverrun:
    """The runner killed a GPU job for holding more device memory than its limit: both
    figures in MiB, as read by the parent through the driver (runner/device_memory.py)."""

    used_mb: int
    limit_mb: int


@record
class ExitInfo:
    returncode: int | None  # None when a signal ended it
    signal: int | None
    oom_killed: bool = False  # the memory limit ended it
    cpu_limit: bool = False  # the CPU-time limit ended it
    device_memory: DeviceMemoryOverrun | None = None  # the device-memory limit ended it


@record
class Outcome:
    kind: OutcomeKind
    time_ms: float = 0.0
    observation: object = None
    message: str = ""
    exception: str = ""
    line: int | None = None
    traceback: str = ""
    exit: ExitInfo | None = None
    cpu_s: float | None = None  # CPU time the kernel counted for the job on this case
    # The trace step that raised, as the child counted it: a hint for display, checked
    # against the reference's trace when graded (judge/grading/case_grading.py).
    step: int | None = None
    # What it printed while this case ran (the parent tells cases apart; judge/run/session.py).
    stdout: str = ""
    stderr: str = ""

    def without_observation(self) -> Outcome:
        """The same outcome, its observation dropped once graded."""
        return self if self.observation is None else replace(self, observation=None)

    # Each returns the outcome itself where nothing changes: every case passes through
    # both, and a copy (replace) is a cost on each case's critical path.
    def with_cpu(self, cpu_s: float | None) -> Outcome:
        return self if cpu_s is None and self.cpu_s is None else replace(self, cpu_s=cpu_s)

    def with_output(self, stdout: str, stderr: str) -> Outcome:
        if stdout == self.stdout and stderr == self.stderr:
            return self
        return replace(self, stdout=stdout, stderr=stderr)
