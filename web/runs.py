"""Public runs: Run for a torch-tier problem, judged on the server on the public cases only.

A run is practice feedback, not a submission: nothing is written to the database, it is
never an attempt and never reaches a board. It shares the judge (the runner's warm
workers) with submissions, so it is bounded: one run per user at a time and `slots` in
all. A run that finds no slot is refused at once (429), never queued, so a burst of runs
can neither pile up in memory nor wait in front of the submissions.

Runs live in this process's memory, like the rate limits: a learner polls their run by
an unguessable id, sees only their own, and each user keeps only their latest finished
run, for `keep_s` seconds. A restart forgets them (the page says so and the learner
runs again)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from judge.spec import ProblemSpec
from web import judging
from web.errors import NotFound, RateLimited
from web.i18n import say
from web.status import RunStatus

RUNNING, DONE = RunStatus.RUNNING, RunStatus.DONE
# What a refused run is told to wait: a torch run takes seconds to tens of seconds.
BUSY_RETRY_S = 5


@dataclass(slots=True)
class PublicRun:
    id: str
    user_id: int
    problem: str
    started: float
    status: RunStatus = RUNNING
    report: dict[str, Any] | None = None  # the learner's view, once done
    finished: float | None = None

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "problem": self.problem, "status": self.status}
        out["url"] = f"/api/runs/{self.id}"
        if self.report is not None:
            out["report"] = self.report
        return out


@dataclass(slots=True)
class _Table:
    by_id: dict[str, PublicRun] = field(default_factory=dict)
    latest: dict[int, str] = field(default_factory=dict)  # user id -> their latest run id


class PublicRuns:
    """Starts runs on a small thread pool of `slots` threads and keeps their reports."""

    def __init__(
        self,
        judge: judging.Judge,
        slots: int,
        *,
        keep_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if slots < 1:
            raise ValueError(f"public run slots must be at least 1, got {slots}")
        self._judge = judge
        self._slots = slots
        self._keep_s = keep_s
        self._clock = clock
        self._lock = threading.Lock()
        self._table = _Table()
        self._executor = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="public-run")

    def start(self, user_id: int, problem: ProblemSpec, code: str) -> PublicRun:
        """Start a run, or raise RateLimited (`run_in_progress` / `runs_busy`)."""
        with self._lock:
            self._prune()
            mine = self._table.by_id.get(self._table.latest.get(user_id, ""))
            if mine is not None and mine.status == RUNNING:
                message = say("err_run_in_progress")
                raise RateLimited(message, BUSY_RETRY_S, code="run_in_progress")
            if self.running() >= self._slots:
                message = say("err_runs_busy", slots=self._slots)
                raise RateLimited(message, BUSY_RETRY_S, code="runs_busy")
            run = PublicRun(secrets.token_urlsafe(12), user_id, problem.slug, self._clock())
            if mine is not None:  # one kept report per user: the new run replaces the old
                del self._table.by_id[mine.id]
            self._table.by_id[run.id] = run
            self._table.latest[user_id] = run.id
        self._executor.submit(self._judge_run, run, problem, code)
        return run

    def get(self, user_id: int, run_id: str) -> PublicRun:
        """The caller's run; NotFound for another user's, a forgotten or an unknown id."""
        with self._lock:
            self._prune()
            run = self._table.by_id.get(run_id)
        if run is None or run.user_id != user_id:
            message = say("err_unknown_run", minutes=f"{self._keep_s / 60:g}")
            raise NotFound("unknown_run", message, field="run")
        return run

    def running(self) -> int:
        return sum(1 for r in self._table.by_id.values() if r.status == RUNNING)

    def close(self) -> None:
        """Let running runs finish (their judge is still open), then stop the threads."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _judge_run(self, run: PublicRun, problem: ProblemSpec, code: str) -> None:
        report = judging.judge_public(self._judge, problem, code)
        view = report.to_dict()  # the learner's view: no internal_error detail
        with self._lock:
            run.report = view
            run.finished = self._clock()
            run.status = DONE  # last: a reader that sees "done" sees the report

    def _prune(self) -> None:
        cutoff = self._clock() - self._keep_s
        table = self._table
        stale = [r for r in table.by_id.values() if r.finished is not None and r.finished < cutoff]
        for run in stale:
            del table.by_id[run.id]
            if table.latest.get(run.user_id) == run.id:
                del table.latest[run.user_id]
