"""The parent's side of a hosted run: a trusted child drives each case, the job hosts.

A problem with `[driver] side = "trusted"` keeps everything its rules rest on out of the
learner's process (the capstone's runner, KV pool, budget, bound and trace). Its cases.py
runs in a trusted child, the *driver* (launched as a speed problem's paced reference is:
`Launcher.launch_trusted`); the submission's job only *hosts* the learner's objects and
answers calls (judge/run/remote.py). Every frame between the two passes through here:

    driver  --case-->  [parent]  --host-->  job
    driver  --call-->  [parent]  --call-->  job        (the driver calls the engine)
    driver  <--call--  [parent]  <--call--  job        (the engine calls the runner back)
    driver  --result->  [parent]  --end--->  job  --ended->  [parent]

The two take turns: a frame from the side whose turn it is not ends the case (the job's:
RE; the driver's: the judge's failure). The job's frames are checked and rebuilt before the
driver sees them; a `raise` from the job (the learner's code raised) is the case's error,
with its line and traceback, as a plain child's would be. The observation is the driver's:
nothing the job sends becomes part of it except through the driver's own checks. The time
of a case runs from the case sent to the driver to the driver's answer.
"""

from __future__ import annotations

import os
import selectors
import time
from collections import deque

from judge.errors import FrameTooLarge, ProtocolError
from judge.grading.outcome import Outcome, OutcomeKind
from judge.problem.cases import Case
from judge.problem.device import Device
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.run.budget import ResultBudget
from judge.run.load_message import driver_load_message
from judge.run.remote import CALL, END, ENDED, HOST, RAISE, RETURN
from judge.run.session import (
    FATAL_OUTCOMES,
    STARTUP_ALLOWANCE_S,
    ChildGone,
    OutputLimitHit,
    Session,
    SessionResult,
    child_text,
    interpret_answer,
)
from judge.wire.protocol import Frame, FrameLimits, FrameReader, encode_frame

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import ChildHandle, Launcher

# A frame of the job's during a hosted case: a call or an answer, never an observation.
HOSTED_FRAME = FrameLimits(header_bytes=4 << 20, payload_bytes=0, items=500_000)
DRIVER_LOG_BYTES = 16 << 10  # of what the driver printed, kept for the judge's failure
_DRIVER, _JOB = "driver", "job"


def start_driver(
    problem: ProblemSpec, launcher: Launcher, limits: Limits, device: Device = Device.CPU
) -> ChildHandle:
    """A trusted child for `problem`'s cases.py, its load message sent at once: it starts
    its interpreter and loads torch and its models while the judge prepares the run."""
    driver = launcher.launch_trusted(problem, limits, device)
    try:
        os.write(driver.request_fd, encode_frame(driver_load_message(problem, device)))
    except BaseException:
        driver.cleanup()
        raise
    return driver


class DriverFailed(RuntimeError):
    """The trusted driver died, broke the protocol or could not load: the judge's failure."""


class HostedSession(Session):
    """A Session whose cases `driver` (a trusted child running cases.py) drives, the job
    hosting the submission; see the module's docstring."""

    def __init__(
        self,
        handle: ChildHandle,
        driver: ChildHandle,
        limits: Limits,
        tier: str,
        budget: ResultBudget | None = None,
    ) -> None:
        """`driver`: from start_driver, its load message already sent."""
        # No result budget on the job's channel: its frames are calls, capped one by one
        # (HOSTED_FRAME) and by turn-taking; the driver's observations are what budget fits.
        super().__init__(handle, limits, tier, None)
        self.observation_budget = budget
        self.driver = driver
        self.driver_reader = FrameReader()
        self.driver_frames: deque[Frame] = deque()
        self.driver_pending = b""
        self.driver_open = True
        self.driver_loaded = False
        self.driver_log = bytearray()
        for fd in (driver.result_fd, driver.stdout_fd, driver.stderr_fd):
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        os.set_blocking(driver.request_fd, False)

    # ------------------------------------------------------------------ one hosted case

    def _run_case(self, case: Case, budget_end: float) -> Outcome:
        if not case.public and not self.streams.withholding:
            self._drain_output()
            self.streams.withholding = True
        self.reader.limits = HOSTED_FRAME
        t0 = time.monotonic()
        deadline = min(t0 + self.limits.time_per_case_s, budget_end)
        self.streams.open_case()
        outcome = self._hosted(case, t0, deadline)
        self._drain_output()
        printed = self.streams.close_case()
        if self.streams.exceeded() and outcome.kind not in FATAL_OUTCOMES:
            self.handle.kill()
            outcome = Outcome(
                OutcomeKind.OUTPUT_LIMIT, outcome.time_ms, message=self._too_much_output()
            )
        return outcome.with_output(*printed)

    def _hosted(self, case: Case, t0: float, deadline: float) -> Outcome:
        """The case's conversation, ended however it ends (the job's failures as outcomes)."""
        try:
            self._await_driver_loaded()
            return self._converse(case, t0, deadline)
        except FrameTooLarge:
            self.corrupted = True
            return self._job_failed(OutcomeKind.OUTPUT_LIMIT, t0, "sent a frame too large")
        except ProtocolError as exc:
            self.corrupted = True
            message = f"the result channel was corrupted: {exc}"
            return self._job_failed(OutcomeKind.PROTOCOL, t0, message)
        except OutputLimitHit:
            return self._job_failed(OutcomeKind.OUTPUT_LIMIT, t0, self._too_much_output())
        except TimeoutError:
            return self._job_failed(OutcomeKind.TIMEOUT, t0, "time limit exceeded")
        except ChildGone:
            self.handle.kill()
            self._end_driver()
            return Outcome(OutcomeKind.CRASH, _ms(t0), exit=self.handle.wait(5.0))
        except _OutOfTurn as exc:
            return self._job_failed(OutcomeKind.PROTOCOL, t0, str(exc))

    def _converse(self, case: Case, t0: float, deadline: float) -> Outcome:
        self._send(_DRIVER, case.to_request())
        self._send(_JOB, {"type": HOST, "name": case.name})
        turn, job_error = _DRIVER, None
        while True:
            side, frame = self._next_frame(deadline)
            kind = frame.header.get("type")
            if side != turn:
                if side == _JOB:
                    raise _OutOfTurn(f"sent a {kind!r:.20} frame out of turn")
                raise DriverFailed(f"the driver sent a {kind!r:.20} frame out of turn")
            if side == _DRIVER and kind in (CALL, RETURN, RAISE):
                self._send(_JOB, frame.header)  # trusted: its own frames, passed on
                turn = _JOB
            elif side == _DRIVER and kind in ("result", "error"):
                break
            elif side == _DRIVER:
                raise DriverFailed(f"the driver sent a {kind!r:.20} frame")
            else:
                answer, error = _from_job(frame)
                if error is not None and job_error is None:
                    job_error = Frame({**error.header, "name": case.name}, ())
                self._send(_DRIVER, answer)
                turn = _DRIVER
        elapsed = _ms(t0)
        self._send(_JOB, {"type": END})
        self._await_done(case, deadline)
        if job_error is not None:  # the learner's code raised: its error, line and traceback
            return interpret_answer(job_error, case.name, elapsed, self.max_line, 0)
        return self._driver_answer(frame, case, elapsed)

    def _driver_answer(self, frame: Frame, case: Case, elapsed: float) -> Outcome:
        """The driver's observation, or the error its run of the case raised (a value the job
        returned that the driver could not use: RE, as it would be in one process)."""
        budget = self.observation_budget
        items = budget.for_case(case.name).items if budget is not None else 2_000_000
        outcome = interpret_answer(frame, case.name, elapsed, 0, items)
        if outcome.kind is OutcomeKind.PROTOCOL:
            raise DriverFailed(f"the driver's answer to {case.name}: {outcome.message}")
        return outcome

    def _await_done(self, case: Case, deadline: float) -> None:
        side, frame = self._next_frame(deadline)
        header = frame.header
        if side == _DRIVER:
            kind = header.get("type")
            raise DriverFailed(f"the driver sent a {kind!r:.20} frame after its answer")
        if header.get("type") != ENDED or header.get("name") != case.name:
            raise _OutOfTurn("did not end the case when asked")

    def _job_failed(self, kind: OutcomeKind, t0: float, message: str) -> Outcome:
        self.handle.kill()
        self._end_driver()  # mid-case: its run cannot be resumed
        return Outcome(kind, _ms(t0), message=message)

    # ------------------------------------------------------------------ the driver's channel

    def _await_driver_loaded(self) -> None:
        if self.driver_loaded:
            return
        deadline = time.monotonic() + STARTUP_ALLOWANCE_S["torch"]
        _, frame = self._next_frame(deadline, driver_only=True)
        if frame.header.get("type") != "loaded":
            raise DriverFailed(f"the driver did not load: {frame.header}")
        self.driver_loaded = True

    def _send(self, side: str, header: dict[str, object]) -> None:
        data = encode_frame(header)
        if side == _DRIVER:
            if not self.driver_open:
                raise DriverFailed("the driver is gone")
            self.driver_pending += data
            fd = self.driver.request_fd
        else:
            self.pending += data
            fd = self.handle.request_fd
        if fd >= 0 and not self._registered(fd):
            self.sel.register(fd, selectors.EVENT_WRITE)

    def _next_frame(self, deadline: float, driver_only: bool = False) -> tuple[str, Frame]:
        """The next frame from the driver or the job, whichever comes first."""
        while True:
            if self.driver_frames:
                return _DRIVER, self.driver_frames.popleft()
            if self.frames and not driver_only:
                return _JOB, self.frames.popleft()
            if not self.driver_open:
                raise DriverFailed("the driver exited" + self._driver_said())
            if not self.result_open and not driver_only:
                raise ChildGone
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if driver_only:
                    raise DriverFailed("the driver did not load in time" + self._driver_said())
                raise TimeoutError
            for key, _ in self.sel.select(remaining):
                self._on_ready(int(key.fd))
            if self.streams.exceeded():
                raise OutputLimitHit

    def _on_ready(self, fd: int) -> None:
        driver = self.driver
        if fd == driver.request_fd:
            self._write_driver()
        elif fd == driver.result_fd:
            chunk = _read(fd)
            if chunk == b"":
                self._unregister(fd)
                self.driver_open = False
            elif chunk:
                self.driver_frames.extend(self.driver_reader.feed(chunk))
        elif fd in (driver.stdout_fd, driver.stderr_fd):
            chunk = _read(fd)
            if chunk == b"":
                self._unregister(fd)
            elif chunk:
                self.driver_log += chunk
                del self.driver_log[:-DRIVER_LOG_BYTES]
        else:
            super()._on_ready(fd)

    def _write_driver(self) -> None:
        try:
            n = os.write(self.driver.request_fd, self.driver_pending)
        except BlockingIOError:
            return
        except BrokenPipeError:
            n = len(self.driver_pending)  # it exited; its result channel will say so
        self.driver_pending = self.driver_pending[n:]
        if not self.driver_pending:
            self._unregister(self.driver.request_fd)

    def _driver_said(self) -> str:
        text = self.driver_log.decode("utf-8", "replace").strip()
        return f": {text[-2000:]}" if text else ""

    def _end_driver(self) -> None:
        """Stop the driver mid-case (the job failed): nothing it computes now is needed."""
        self.driver.kill()
        for fd in (self.driver.request_fd, self.driver.result_fd):
            if fd >= 0:
                self._unregister(fd)
        self.driver_open = False

    def _finish(
        self,
        start: float,
        load_error: dict[str, object] | None,
        outcomes: list[Outcome],
        startup: Outcome | None = None,
    ) -> SessionResult:
        result = super()._finish(start, load_error, outcomes, startup)
        self.driver.close_requests()
        self.driver.kill()
        self.driver.wait(5.0)
        return result


class _OutOfTurn(Exception):
    """The job sent a frame it had no turn for, or not the frame its turn asks for."""


def _from_job(frame: Frame) -> tuple[dict[str, object], Frame | None]:
    """A frame of the job's, rebuilt from its checked fields for the driver, and the frame
    itself when it is the learner's error (the case's outcome)."""
    header = frame.header
    kind = header.get("type")
    if frame.tensors:
        raise _OutOfTurn("sent tensors in a call")
    if kind == CALL:
        target, method, args = header.get("target"), header.get("method"), header.get("args")
        if type(target) is not int or type(method) is not str or type(args) is not list:
            raise _OutOfTurn("sent a malformed call")
        return {"type": CALL, "target": target, "method": method, "args": args}, None
    if kind == RETURN:
        return {"type": RETURN, "value": header.get("value")}, None
    if kind == RAISE:
        error = Frame({**header, "type": "error"}, ())
        said: dict[str, object] = {"type": RAISE}
        said["exception"] = child_text(header.get("exception"), 200)
        said["message"] = child_text(header.get("message"), 2000)
        builtin = header.get("builtin")
        said["builtin"] = builtin if type(builtin) is str and builtin.isidentifier() else None
        return said, error
    raise _OutOfTurn(f"sent a {kind!r:.20} frame during a call")


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None


def _ms(t0: float) -> float:
    return (time.monotonic() - t0) * 1000


__all__ = ["DriverFailed", "HostedSession"]
