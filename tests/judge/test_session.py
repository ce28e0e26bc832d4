"""The parent's event loop against a scripted child: bytes arrive exactly when the test says."""

from __future__ import annotations

import os

from judge.grading.outcome import ExitInfo, OutcomeKind
from judge.problem.limits import Limits
from judge.run.session import Session
from judge.wire.protocol import encode_frame

LIMITS = Limits(time_per_case_s=1.0, total_time_s=2.0, memory_mb=256)


class ScriptedChild:
    """A ChildHandle over plain pipes; `on_kill` bytes land in the result pipe as it dies,
    like frames a real child wrote just before the SIGKILL took effect."""

    def __init__(self, first: bytes, on_kill: bytes) -> None:
        self._req_r, self.request_fd = os.pipe()
        self.result_fd, self._res_w = os.pipe()
        self.stdout_fd, self._out_w = os.pipe()
        self.stderr_fd, self._err_w = os.pipe()
        self._on_kill = on_kill
        os.write(self._res_w, first)
        self.killed = 0

    def close_requests(self) -> None:
        pass

    def kill(self) -> None:
        self.killed += 1
        if self._res_w >= 0:
            os.write(self._res_w, self._on_kill)
            for fd in (self._res_w, self._out_w, self._err_w):
                os.close(fd)
            self._res_w = -1

    def wait(self, timeout: float) -> ExitInfo:
        return ExitInfo(returncode=None, signal=9)

    def cpu_seconds(self) -> float | None:
        return None

    def cleanup(self) -> None:
        for fd in (self._req_r, self.request_fd, self.result_fd, self.stdout_fd, self.stderr_fd):
            os.close(fd)


def test_bytes_after_a_corrupt_frame_are_dropped_not_an_internal_error() -> None:
    """A submission wrote garbage into the result channel, then the child's own frame
    followed before the kill: the session reports the corruption and never raises."""
    child = ScriptedChild(b"\x80\x04garbage-not-a-frame", encode_frame({"type": "loaded"}))
    try:
        result = Session(child, LIMITS, "browser").run({"type": "load"}, [])
    finally:
        child.cleanup()
    assert result.startup_failure is not None
    assert result.startup_failure.kind is OutcomeKind.PROTOCOL
    assert "not a judge frame" in (result.startup_failure.message or "")
    assert child.killed >= 1
