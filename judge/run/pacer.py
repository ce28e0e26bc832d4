"""The reference, timed beside a speed problem's submission: one repetition before each of its own.

A speed run's rates alone say as much about the machine as about the code: decode-throughput's
reference scored 500-533 tokens/s idle and 212-354 tokens/s beside two busy loops. So just
before the parent sends a timed case to the submission, it runs reference.py on the very same
case itself (the trusted process, on one torch thread, as every job runs) and times it with
its own clock. Each pair of times is taken moments apart, under whatever load the machine had
then, and the score is built from their ratio (judge/grading/speed_scoring.py).

While the reference runs, the submission's processes are stopped (SIGSTOP, which no process
can catch or ignore): a job that spun a thread between its cases would otherwise take the CPU
from the reference on a busy machine and make its own ratio look better.
"""

from __future__ import annotations

import time

from judge.problem.cases import Case, load_module
from judge.problem.spec import ProblemSpec

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.run.interfaces import ChildHandle


class Pacer:
    """Runs the reference on each timed case (and the warm-up) just before the submission does,
    and keeps the timed cases' seconds by name."""

    def __init__(self, problem: ProblemSpec, handle: ChildHandle) -> None:
        self._driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
        self._reference = load_module(
            problem.reference_source(), "reference", str(problem.path / "reference.py")
        )
        self._handle = handle
        self.seconds: dict[str, float] = {}

    def before(self, case: Case) -> None:
        """Called just before `case` is sent to the submission."""
        if case.timed is None and not case.warm_up:
            return
        self._handle.pause()
        try:
            # The warm-up is run too: the reference's first pass pays for its own caches.
            start = time.perf_counter()
            self._driver.run(self._reference, case.args)
            elapsed = time.perf_counter() - start
        finally:
            self._handle.resume()
        if case.timed is not None:
            self.seconds[case.name] = elapsed


__all__ = ["Pacer"]
