"""The parent's side of one run: send requests, time every case, drain output, enforce limits.

Everything the child sends is untrusted. This module turns bytes on four file
descriptors into `Outcome`s (what happened on each case); judging.py turns those into
verdicts with the checkers.
"""

from __future__ import annotations

import os
import selectors
import time
from collections import deque
from collections.abc import Callable

from judge.errors import FrameTooLarge, ProtocolError
from judge.grading.outcome import NOT_TIMED, Outcome, OutcomeKind
from judge.problem.cases import Case
from judge.problem.limits import CpuAllowance, Limits, RuleClock
from judge.record import default, record
from judge.run.budget import LOAD_ANSWER, ResultBudget
from judge.textcap import bounded
from judge.wire.codec import MAX_ITEMS, TooManyItems, decode
from judge.wire.protocol import Frame, FrameReader, encode_frame

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import ChildHandle

CaseCount = Callable[[int, int], None]  # (cases done, cases in all), after each case
OnOutcome = Callable[[Case, Outcome], None]  # grades a case the moment its outcome is known
Skip = Callable[[Case], bool]  # asked before each case: True leaves it out (not timed)
Before = Callable[[Case], None]  # called just before a case is sent (a speed run's pacer)
CPU_POLL_S = 0.05  # how often a calibrated case's CPU count is read while it runs
EXIT_GRACE_S = 0.5  # after the last case, how long a child may take to flush and exit
STARTUP_ALLOWANCE_S = {
    "browser": 5.0,
    "torch": 30.0,
}  # interpreter start and imports before the first case


@record(frozen=False)
class SessionResult:
    load_error: dict[str, object] | None
    outcomes: list[Outcome]
    stdout: bytes
    stderr: bytes
    output_exceeded: bool
    time_ms: float
    startup_failure: Outcome | None = None
    # The child broke the protocol after its last answer (garbage on the result channel).
    trailing_failure: Outcome | None = None
    # What was printed from the first hidden case on: for administrators only.
    withheld_stdout: bytes = b""
    withheld_stderr: bytes = b""


@record(frozen=False)
class _Streams:
    cap: int
    stdout: bytearray = default(factory=bytearray)
    stderr: bytearray = default(factory=bytearray)
    withheld_stdout: bytearray = default(factory=bytearray)
    withheld_stderr: bytearray = default(factory=bytearray)
    withholding: bool = False  # set when the first hidden case is sent
    total: dict[int, int] = default(factory=dict)
    # Where the public case now running has its stdout and stderr begin (offsets into
    # stdout and stderr), None between cases: the bytes that arrive from its request to
    # its answer are its own, as the child flushes before it answers.
    case_start: tuple[int, int] | None = None

    def exceeded(self) -> bool:
        return any(n > self.cap for n in self.total.values())

    def open_case(self) -> None:
        self.case_start = None if self.withholding else (len(self.stdout), len(self.stderr))

    def close_case(self) -> tuple[str, str]:
        """What the case that was running printed (already counted in stdout and stderr)."""
        start, self.case_start = self.case_start, None
        if start is None:
            return "", ""
        out, err = self.stdout[start[0] :], self.stderr[start[1] :]
        return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def over_wall_allowance(allowance: CpuAllowance, elapsed_ms: float) -> bool:
    """Whether a case over a wall-time allowance (a CUDA job's calibrated case) took longer
    than it allows, by the parent's clock; never for a CPU-time allowance."""
    return allowance.clock is RuleClock.WALL and elapsed_ms / 1000 > allowance.seconds


class Session:
    """Drive one child through a load message and a list of cases."""

    def __init__(
        self,
        handle: ChildHandle,
        limits: Limits,
        tier: str,
        budget: ResultBudget | None = None,
        cpu: dict[str, CpuAllowance] | None = None,
    ) -> None:
        self.handle = handle
        # Calibrated cases' CPU caps by case name; the parent polls the kernel's count.
        self.cpu = cpu or {}
        # Frame and channel caps from the problem's expected answers (None: the defaults).
        self.budget = budget
        self.result_bytes = 0
        self.max_line = 0  # lines in the submission, set by run()
        self.limits = limits
        self.allowance = STARTUP_ALLOWANCE_S.get(tier, 5.0)
        self.reader = FrameReader()
        self.frames: deque[Frame] = deque()
        self.streams = _Streams(limits.output_bytes)
        self.sel = selectors.DefaultSelector()
        self.pending = b""
        self.result_open = True
        # Set once the result channel carried non-frames: whatever follows (a frame the child
        # wrote before the kill landed) is dropped, never parsed again.
        self.corrupted = False
        for fd in (handle.result_fd, handle.stdout_fd, handle.stderr_fd):
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        os.set_blocking(handle.request_fd, False)

    def run(
        self,
        load: dict[str, object],
        cases: list[Case],
        progress: CaseCount | None = None,
        on_outcome: OnOutcome | None = None,
        skip: Skip | None = None,
        before: Before | None = None,
    ) -> SessionResult:
        """Load, then run `cases` one at a time. `on_outcome` sees each outcome with its
        observation as it arrives; the result keeps outcomes without observations, so a run
        never holds more than one case's answer at a time. A case `skip` picks (asked just
        before it would be sent, after every earlier case was graded) is not run; `before`
        is called with every case that is, just before it is sent (outside its time)."""
        start = time.monotonic()
        source = load.get("source")
        # A line the child names is believed only if the submission has that line.
        self.max_line = source.count("\n") + 1 if isinstance(source, str) else 0
        if self.budget is not None:
            self.reader.limits = LOAD_ANSWER
        got = self._exchange(encode_frame(load), start + self.allowance)
        if isinstance(got, Outcome):  # the child died or stalled before it could load anything
            return self._finish(start, None, [_SKIPPED] * len(cases), startup=got)
        self._drain_output()  # what loading printed, flushed before the child answered
        if got.header.get("type") == "load_error":
            error = _load_error(got.header, self.max_line)
            return self._finish(start, error, [_SKIPPED] * len(cases))
        if got.header.get("type") != "loaded":
            failure = Outcome(
                OutcomeKind.PROTOCOL, message="the child did not acknowledge the load"
            )
            return self._finish(start, None, [_SKIPPED] * len(cases), startup=failure)
        budget_end = time.monotonic() + self.limits.total_time_s
        outcomes: list[Outcome] = []
        alive = True
        for case in cases:
            if not alive:
                outcome = _SKIPPED
            elif skip is not None and skip(case):
                outcome = _NOT_TIMED
            else:
                if before is not None:
                    paced_from = time.monotonic()
                    before(case)
                    budget_end += time.monotonic() - paced_from  # not the submission's time
                outcome = self._run_case(case, budget_end)
            if on_outcome is not None:
                on_outcome(case, outcome)
            outcomes.append(outcome.without_observation())
            # Once the child is gone (killed, crashed, desynchronised) the rest are not run.
            alive = alive and outcome.kind not in FATAL_OUTCOMES
            if progress is not None:
                progress(len(outcomes), len(cases))
        return self._finish(start, None, outcomes)

    def open(self, load: dict[str, object]) -> str | None:
        """Load, for a trusted child driven one case at a time (judge/run/pacer.py): None once
        it has loaded, else why not."""
        got = self._exchange(encode_frame(load), time.monotonic() + self.allowance)
        if isinstance(got, Outcome):
            return got.message or got.kind.value
        self._drain_output()
        if got.header.get("type") != "loaded":
            return str(got.header.get("message") or got.header.get("type"))
        return None

    def one(self, case: Case) -> Outcome:
        """One case on a child that open() loaded, within the per-case and total limits."""
        return self._run_case(case, time.monotonic() + self.limits.total_time_s)

    def close(self) -> None:
        """End a child driven by open() and one(): let it exit, then reap it."""
        self._finish(time.monotonic(), None, [])

    def _run_case(self, case: Case, budget_end: float) -> Outcome:
        if not case.public and not self.streams.withholding:
            # The child flushed what the public cases printed before answering them: read it
            # now as theirs; from here on everything printed is kept from the learner.
            self._drain_output()
            self.streams.withholding = True
        if self.budget is not None:
            self.reader.limits = self.budget.for_case(case.name)
        allowance = self.cpu.get(case.name)
        on_wall = allowance is not None and allowance.clock is RuleClock.WALL
        # Counted on calibrated cases only: reading the count can mean a walk over /proc. A
        # wall-time allowance (a CUDA job) needs no count: the deadline below is the rule.
        cpu0 = self.handle.cpu_seconds() if case.calibrated and not on_wall else None
        cpu_end = cpu0 + allowance.seconds if allowance is not None and cpu0 is not None else None
        t0 = time.monotonic()
        deadline = min(t0 + self.limits.time_per_case_s, budget_end)
        if allowance is not None and on_wall:
            deadline = min(deadline, t0 + allowance.seconds)
        self.streams.open_case()
        got = self._exchange(encode_frame(case.to_request()), deadline, cpu_end)
        elapsed = (time.monotonic() - t0) * 1000
        self._drain_output()  # flushed before the answer, so already in the pipes
        printed = self.streams.close_case()
        outcome = self._outcome(case, got, elapsed, cpu0, allowance, cpu_end)
        if self.streams.exceeded() and outcome.kind not in FATAL_OUTCOMES:
            # What it printed just before answering took it over the limit: this case's doing.
            self.handle.kill()
            outcome = Outcome(OutcomeKind.OUTPUT_LIMIT, elapsed, message=self._too_much_output())
        return outcome.with_output(*printed)

    def _too_much_output(self) -> str:
        return f"printed more than {self.limits.output_bytes} bytes"

    def _outcome(
        self,
        case: Case,
        got: Frame | Outcome,
        elapsed: float,
        cpu0: float | None,
        allowance: CpuAllowance | None,
        cpu_end: float | None,
    ) -> Outcome:
        cpu1 = self.handle.cpu_seconds() if cpu0 is not None else None
        used = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
        if allowance is not None and over_wall_allowance(allowance, elapsed):
            self.handle.kill()
            message = allowance.describe(case.public)
            return Outcome(OutcomeKind.TIMEOUT, elapsed, message=message)
        if allowance and cpu_end is not None and used is not None and used > allowance.seconds:
            # Polled while it ran, or measured once the answer arrived: over either way.
            self.handle.kill()
            message = allowance.describe(case.public)
            return Outcome(OutcomeKind.TIMEOUT, elapsed, message=message, cpu_s=used)
        if isinstance(got, Outcome):
            return Outcome(got.kind, elapsed, message=got.message, exit=got.exit, cpu_s=used)
        items = self.budget.for_case(case.name).items if self.budget is not None else MAX_ITEMS
        return interpret_answer(got, case.name, elapsed, self.max_line, items).with_cpu(used)

    def _exchange(
        self, request: bytes, deadline: float, cpu_end: float | None = None
    ) -> Frame | Outcome:
        """Send one frame and wait for one frame back, or say why none came."""
        self.pending = request
        self.sel.register(self.handle.request_fd, selectors.EVENT_WRITE)
        try:
            return self._pump(deadline, cpu_end)
        except FrameTooLarge:
            self.corrupted = True
            self.handle.kill()
            return Outcome(
                OutcomeKind.OUTPUT_LIMIT,
                message=_TOO_MUCH_DATA,
            )
        except ProtocolError as exc:
            self.corrupted = True
            self.handle.kill()
            return Outcome(OutcomeKind.PROTOCOL, message=f"the result channel was corrupted: {exc}")
        except OutputLimitHit:
            self.handle.kill()
            return Outcome(OutcomeKind.OUTPUT_LIMIT, message=self._too_much_output())
        except TimeoutError:
            self.handle.kill()
            return Outcome(OutcomeKind.TIMEOUT, message="time limit exceeded")
        except _CpuSpent:
            self.handle.kill()  # the caller sees the count over the allowance and says so
            return Outcome(OutcomeKind.TIMEOUT, message="CPU time limit exceeded")
        except ChildGone:
            self.handle.kill()
            return Outcome(OutcomeKind.CRASH, exit=self.handle.wait(5.0))
        finally:
            if self.pending or self._registered(self.handle.request_fd):
                self.pending = b""
                self._unregister(self.handle.request_fd)

    def _pump(self, deadline: float, cpu_end: float | None = None) -> Frame:
        while not self.frames:
            if not self.result_open:
                raise ChildGone
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            wait = remaining if cpu_end is None else min(remaining, CPU_POLL_S)
            for key, _ in self.sel.select(wait):
                self._on_ready(int(key.fd))
            if self.streams.exceeded():
                raise OutputLimitHit
            if cpu_end is not None and not self.frames:
                used = self.handle.cpu_seconds()
                if used is not None and used > cpu_end:
                    raise _CpuSpent
        return self.frames.popleft()

    def _on_ready(self, fd: int) -> None:
        if fd == self.handle.request_fd:
            self._write_pending()
            return
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self._unregister(fd)
            if fd == self.handle.result_fd:
                self.result_open = False
        elif fd == self.handle.result_fd:
            self.result_bytes += len(chunk)
            if self.budget is not None and self.result_bytes > self.budget.total_bytes:
                raise FrameTooLarge(
                    f"the result channel carried over {self.budget.total_bytes} bytes"
                )
            if not self.corrupted:
                self.frames.extend(self.reader.feed(chunk))
        else:
            self._capture(fd, chunk)

    def _write_pending(self) -> None:
        try:
            n = os.write(self.handle.request_fd, self.pending)
        except BlockingIOError:
            return
        except BrokenPipeError:
            n = len(self.pending)  # the child closed its end; the read side will notice
        self.pending = self.pending[n:]
        if not self.pending:
            self._unregister(self.handle.request_fd)

    def _registered(self, fd: int) -> bool:
        return fd in self.sel.get_map()

    def _unregister(self, fd: int) -> None:
        if self._registered(fd):
            self.sel.unregister(fd)

    def _capture(self, fd: int, chunk: bytes) -> None:
        streams = self.streams
        if fd == self.handle.stdout_fd:
            buf = streams.withheld_stdout if streams.withholding else streams.stdout
        else:
            buf = streams.withheld_stderr if streams.withholding else streams.stderr
        self.streams.total[fd] = self.streams.total.get(fd, 0) + len(chunk)
        room = self.streams.cap - len(buf)
        if room > 0:
            buf += chunk[:room]

    def _finish(
        self,
        start: float,
        load_error: dict[str, object] | None,
        outcomes: list[Outcome],
        startup: Outcome | None = None,
    ) -> SessionResult:
        self._unregister(self.handle.request_fd)
        self.handle.close_requests()  # end of requests: a well-behaved child exits now
        trailing = None
        try:
            self._await_exit(time.monotonic() + EXIT_GRACE_S)
        except ProtocolError:  # FrameTooLarge included: bytes after the last answer
            self.corrupted = True
            trailing = Outcome(OutcomeKind.PROTOCOL, message=_TRAILING)
        self.handle.kill()
        self.handle.wait(5.0)
        self._drain_output()
        self.sel.close()
        return SessionResult(
            load_error=load_error,
            outcomes=outcomes,
            stdout=bytes(self.streams.stdout),
            stderr=bytes(self.streams.stderr),
            output_exceeded=self.streams.exceeded(),
            time_ms=(time.monotonic() - start) * 1000,
            startup_failure=startup,
            trailing_failure=trailing,
            withheld_stdout=bytes(self.streams.withheld_stdout),
            withheld_stderr=bytes(self.streams.withheld_stderr),
        )

    def _await_exit(self, deadline: float) -> None:
        """Give the child a moment to flush its output and close its result channel."""
        while self.result_open and not self.streams.exceeded():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            for key, _ in self.sel.select(remaining):
                self._on_ready(int(key.fd))

    def _drain_output(self) -> None:
        """Read what is in the output pipes now; stops past the cap (a thread may keep writing)."""
        for fd in (self.handle.stdout_fd, self.handle.stderr_fd):
            try:
                while self.streams.total.get(fd, 0) <= self.streams.cap:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        break
                    self._capture(fd, chunk)
            except OSError:
                pass


_SKIPPED = Outcome(OutcomeKind.SKIPPED)
_NOT_TIMED = Outcome(OutcomeKind.SKIPPED, message=NOT_TIMED)
_TOO_MUCH_DATA = "returned far more data than this problem's answers hold"
_TRAILING = "wrote bytes that are not an answer to the result channel after its last answer"
FATAL_OUTCOMES = frozenset(
    {OutcomeKind.TIMEOUT, OutcomeKind.CRASH, OutcomeKind.PROTOCOL, OutcomeKind.OUTPUT_LIMIT}
)


class OutputLimitHit(Exception):
    pass


class ChildGone(Exception):
    pass


class _CpuSpent(Exception):
    """A calibrated case's CPU allowance ran out before it answered."""


def interpret_answer(
    frame: Frame, name: str, elapsed: float, max_line: int, max_items: int
) -> Outcome:
    header = frame.header
    if header.get("name") != name:
        return Outcome(OutcomeKind.PROTOCOL, elapsed, message="the child answered a different case")
    kind = header.get("type")
    if kind == "result":
        try:
            value = decode(header.get("observation"), list(frame.tensors), max_items)
        except TooManyItems:
            return Outcome(OutcomeKind.OUTPUT_LIMIT, elapsed, message=_TOO_MUCH_DATA)
        except (ValueError, RecursionError) as exc:
            return Outcome(OutcomeKind.PROTOCOL, elapsed, message=f"malformed observation: {exc}")
        return Outcome(OutcomeKind.RESULT, elapsed, observation=value)
    if kind == "error":
        return Outcome(
            OutcomeKind.ERROR,
            elapsed,
            message=child_text(header.get("message")),
            exception=child_text(header.get("exception")),
            line=_line(header.get("line"), max_line),
            traceback=child_text(header.get("traceback")),
            step=_step(header.get("step")),
        )
    if kind == "bad_observation":
        return Outcome(
            OutcomeKind.BAD_OBSERVATION, elapsed, message=child_text(header.get("message"))
        )
    return Outcome(OutcomeKind.PROTOCOL, elapsed, message=f"unknown message type {kind!r:.40}")


# A little over the child's own caps (judge/run/child.py, which says how much it cut), so an
# honest child's text arrives whole; only a forged longer one is cut here.
TEXT_CHARS = 4200
LOAD_MESSAGE_CHARS = 2200


def child_text(value: object, limit: int = TEXT_CHARS) -> str:
    """A string from the child, bounded (saying how much was cut) and made encodable (JSON
    allows lone surrogates, which no UTF-8 page, file or database column takes)."""
    if type(value) is not str:
        return ""
    return bounded(value, limit).encode("utf-8", "replace").decode("utf-8")


def _line(value: object, max_line: int) -> int | None:
    return value if type(value) is int and 1 <= value <= max_line else None


def _step(value: object) -> int | None:
    """The step the child says raised; grading checks it against the reference's trace."""
    return value if type(value) is int and value >= 0 else None


_LOAD_ERROR_KINDS = ("syntax", "import", "withheld", "missing_name", "exception")


def _load_error(header: dict[str, object], max_line: int) -> dict[str, object]:
    """The child's load_error, rebuilt from checked fields only (it reaches every report)."""
    kind = header.get("kind")
    return {
        "kind": kind if kind in _LOAD_ERROR_KINDS else "exception",
        "line": _line(header.get("line"), max_line),
        "message": child_text(header.get("message"), LOAD_MESSAGE_CHARS),
        "traceback": child_text(header.get("traceback")),
    }
