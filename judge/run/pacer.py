"""The reference, timed beside a speed problem's submission: one repetition before each of its own.

A speed run's rates alone say as much about the machine as about the code: decode-throughput's
reference scored 500-533 tokens/s idle and 212-354 tokens/s beside two busy loops. So just
before the parent sends a timed case to the submission, it sends the very same case to the
reference, running in a trusted child of its own (`Launcher.launch_trusted`: weighed by the
kernel's scheduler as a job is, on one torch thread as every job runs), and times both with
its own clock, request sent to answer received. Each pair of times is taken moments apart,
under whatever load the machine had then, and the score is built from their ratio
(judge/grading/speed_scoring.py).

While the reference runs, the submission's processes are stopped (SIGSTOP, which no process
can catch or ignore): a job that spun a thread between its cases would otherwise take the CPU
from the reference on a busy machine and make its own ratio look better.
"""

from __future__ import annotations

from judge.grading.outcome import OutcomeKind
from judge.problem.cases import Case
from judge.problem.device import Device
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.run.load_message import load_message
from judge.run.session import Session

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import ChildHandle, Launcher


class PacingFailed(RuntimeError):
    """The reference did not answer a case it was timed on: the judge's failure (IE)."""


class Pacer:
    """The reference in a trusted child, run on each timed case (and the warm-up) just before
    the submission; keeps the timed cases' seconds by name. Started as the submission's job
    starts, so both load at once; close() ends it."""

    def __init__(
        self,
        problem: ProblemSpec,
        submission: ChildHandle,
        launcher: Launcher,
        limits: Limits,
        device: Device = Device.CPU,
    ) -> None:
        self._submission = submission
        self._child = launcher.launch_trusted(problem, limits, device)
        self._driver: ChildHandle | None = None
        try:
            self._session = self._open_session(problem, launcher, limits, device)
        except BaseException:
            self._child.cleanup()
            raise
        # On the submission's device: the pair is timed on the same kind of hardware.
        self._load = load_message(problem, problem.reference_source(), device)
        self._loaded = False
        self.seconds: dict[str, float] = {}

    def _open_session(
        self, problem: ProblemSpec, launcher: Launcher, limits: Limits, device: Device
    ) -> Session:
        """A plain session; for a hosted problem, the reference hosted as the submission is,
        with a trusted driver of its own: both pay the same calls, and the pair stays fair."""
        if not problem.hosted:
            return Session(self._child, limits, problem.tier)
        from judge.run.hosted_session import HostedSession, start_driver

        self._driver = start_driver(problem, launcher, limits, device)
        return HostedSession(self._child, self._driver, limits, problem.tier)

    def before(self, case: Case) -> None:
        """Called just before `case` is sent to the submission."""
        if case.timed is None and not case.warm_up:
            return
        if not self._loaded:
            failure = self._session.open(self._load)
            if failure is not None:
                raise PacingFailed(f"the reference did not load to be timed: {failure}")
            self._loaded = True
        self._submission.pause()
        try:
            # The warm-up is run too: the reference's first pass pays for its own caches.
            outcome = self._session.one(case)
        finally:
            self._submission.resume()
        if outcome.kind is not OutcomeKind.RESULT:
            detail = outcome.message or outcome.kind.value
            raise PacingFailed(f"the reference did not answer {case.name}: {detail}")
        if case.timed is not None:
            self.seconds[case.name] = outcome.time_ms / 1000

    def close(self) -> None:
        try:
            if self._loaded:
                self._session.close()
        finally:
            try:
                if self._driver is not None:
                    self._driver.cleanup()
            finally:
                self._child.cleanup()


__all__ = ["Pacer", "PacingFailed"]
