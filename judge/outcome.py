"""What happened on one case before any checking, and how a child process ended."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ExitInfo:
    returncode: int | None  # None when a signal ended it
    signal: int | None
    oom_killed: bool = False  # the memory limit ended it
    cpu_limit: bool = False  # the CPU-time limit ended it


@dataclass(frozen=True, slots=True)
class Outcome:
    # result | error | bad_observation | timeout | crash | protocol | output_limit | skipped
    kind: str
    time_ms: float = 0.0
    observation: object = None
    message: str = ""
    exception: str = ""
    line: int | None = None
    traceback: str = ""
    exit: ExitInfo | None = None

    def without_observation(self) -> Outcome:
        """The same outcome, its observation dropped once graded."""
        if self.observation is None:
            return self
        return Outcome(
            self.kind, self.time_ms, None, self.message, self.exception, self.line,
            self.traceback, self.exit,
        )  # fmt: skip
