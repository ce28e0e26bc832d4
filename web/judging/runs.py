"""Public runs: Run for a torch-tier problem, judged on the server on the public cases only,
and "Try your own input": a learner's own arguments on the reference (and, for a torch-tier
problem, on their code; a browser-tier page runs the code itself on the reference's answer).

A run is practice feedback, not a submission: it is never an attempt and never reaches a
board. It shares the judge with submissions, so it is bounded: one run per user at a time
and `slots` in all. A run that finds no slot is refused at once (429), never waits its
turn, so a burst of runs cannot pile up in front of the submissions.

A run is a row (web.store.models.PublicRun), so that behind several server processes the one
that answers a poll knows the run another started, and whichever worker judges it (this
process's threads on the embedded queue, a `judge worker` on Celery) writes its report
where all of them read it. A learner polls their run by an unguessable id, sees only their
own, and keeps only their latest run, for `keep_s` seconds after it finished."""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from judge import messages
from judge.errors import UnknownProblem
from judge.problem.spec import ProblemSpec
from judge.run.custom_run import CustomRun
from judge.run.judge_source import internal_error
from web.errors import NotFound, RateLimited
from web.i18n import say
from web.judging import core_seam
from web.store.db import changed, transaction, utcnow
from web.store.models import PublicRun
from web.store.status import RunStatus

RUNNING, DONE = RunStatus.RUNNING, RunStatus.DONE
# What a refused run is told to wait: a torch run takes seconds to tens of seconds.
BUSY_RETRY_S = 5
# A run not done this long after its problem's own time limit is given up as lost (its
# worker died); it then stops holding a slot and its page says so.
LOST_AFTER_S = 120.0
LOST = "the judge stopped before this run finished; run it again"

log = logging.getLogger(__name__)


class RunDispatch(Protocol):
    """Gets a stored run judged: threads here, or a task for a worker."""

    def send(self, run_id: str, problem: ProblemSpec) -> None:
        """Raises if the run cannot be handed on (the caller then refuses it)."""
        ...

    def close(self) -> None: ...


def view(run: PublicRun, now: datetime) -> dict[str, Any]:
    """A run as its learner polls it: `report` for a Run of the public cases, `custom` (what
    judge.run.custom_run gave) for a learner's own input, once done."""
    out: dict[str, Any] = {"id": run.id, "problem": run.problem_slug}
    lost = run.status == RUNNING and run.expires_at < now
    out["status"] = DONE if lost else run.status
    out["url"] = f"/api/runs/{run.id}"
    field = "report" if run.input_json is None else "custom"
    if lost:
        out[field] = _failed(run.problem_slug, run.input_json, LOST)
    elif run.report_json is not None:
        out[field] = json.loads(run.report_json)
    return out


class PublicRuns:
    """Starts runs (stored, then dispatched) and answers for them."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        dispatch: RunDispatch,
        slots: int,
        *,
        keep_s: float = 600.0,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if slots < 1:
            raise ValueError(f"public run slots must be at least 1, got {slots}")
        self._sessions = sessions
        self._dispatch = dispatch
        self._slots = slots
        self._keep = timedelta(seconds=keep_s)
        self._keep_s = keep_s
        self._clock = clock
        # Check-then-insert in one process at a time; across processes the slot count may
        # be passed by one run per process starting at the same moment (docs/CLUSTER.md).
        self._lock = threading.Lock()

    def start(
        self,
        user_id: int,
        problem: ProblemSpec,
        code: str | None,
        input_json: str | None = None,
    ) -> dict[str, Any]:
        """Store and dispatch a run, or raise RateLimited (`run_in_progress` / `runs_busy`).
        `input_json`: a learner's own arguments (JSON text, already read once), run instead
        of the public cases; `code` may then be None (the reference alone)."""
        if code is None and input_json is None:
            raise ValueError("a Run of the public cases needs code")
        now = self._clock()
        with self._lock, transaction(self._sessions) as db:
            self._prune(db, now)
            live = (PublicRun.status == RUNNING) & (PublicRun.expires_at >= now)
            if db.scalar(select(PublicRun.id).where(live, PublicRun.user_id == user_id)):
                raise RateLimited(say("err_run_in_progress"), BUSY_RETRY_S, "run_in_progress")
            if (db.scalar(select(func.count()).where(live)) or 0) >= self._slots:
                message = say("err_runs_busy", slots=self._slots)
                raise RateLimited(message, BUSY_RETRY_S, code="runs_busy")
            # One kept run per user: the new run replaces the old.
            db.execute(delete(PublicRun).where(PublicRun.user_id == user_id))
            limit = timedelta(seconds=problem.limits.total_time_s + LOST_AFTER_S)
            run = PublicRun(
                id=secrets.token_urlsafe(12),
                user_id=user_id,
                problem_slug=problem.slug,
                code=code,
                input_json=input_json,
                status=RUNNING,
                created_at=now,
                expires_at=now + limit,
            )
            db.add(run)
        try:
            self._dispatch.send(run.id, problem)
        except Exception:
            with transaction(self._sessions) as db:
                db.execute(delete(PublicRun).where(PublicRun.id == run.id))
            raise
        return view(run, now)

    def get(self, user_id: int, run_id: str) -> dict[str, Any]:
        """The caller's run; NotFound for another user's, a forgotten or an unknown id."""
        now = self._clock()
        with self._sessions() as db:
            run = db.get(PublicRun, run_id)
        if run is None or run.user_id != user_id or self._stale(run, now):
            message = say("err_unknown_run", minutes=f"{self._keep_s / 60:g}")
            raise NotFound("unknown_run", message, field="run")
        return view(run, now)

    def running(self) -> int:
        now = self._clock()
        with self._sessions() as db:
            live = (PublicRun.status == RUNNING) & (PublicRun.expires_at >= now)
            return db.scalar(select(func.count()).where(live)) or 0

    def close(self) -> None:
        """Let running runs finish (their judge is still open), then stop the threads."""
        self._dispatch.close()

    def _stale(self, run: PublicRun, now: datetime) -> bool:
        ended = run.finished_at if run.status == DONE else run.expires_at
        return ended is not None and ended < now - self._keep

    def _prune(self, db: Session, now: datetime) -> None:
        cutoff = now - self._keep
        db.execute(
            delete(PublicRun).where(
                or_(
                    (PublicRun.status == DONE) & (PublicRun.finished_at < cutoff),
                    PublicRun.expires_at < cutoff,
                )
            )
        )


def problem_of(
    sessions: sessionmaker[Session], problems: Callable[[str], ProblemSpec], run_id: str
) -> ProblemSpec | None:
    """The problem of a stored, still running run (None if there is none, or it is gone)."""
    with sessions() as db:
        slug = db.scalar(
            select(PublicRun.problem_slug).where(
                PublicRun.id == run_id, PublicRun.status == RUNNING
            )
        )
    if slug is None:
        return None
    try:
        return problems(slug)
    except UnknownProblem:
        return None


def judge_run(
    sessions: sessionmaker[Session],
    problems: Callable[[str], ProblemSpec],
    judge: core_seam.Judge,
    run_id: str,
    worker: str = "embedded",
) -> None:
    """Judge one stored run and write its report (the job, on either queue)."""
    with transaction(sessions) as db:
        claimed = changed(
            db,
            update(PublicRun)
            .where(
                PublicRun.id == run_id, PublicRun.status == RUNNING, PublicRun.claimed_by.is_(None)
            )
            .values(claimed_by=worker),
        )
        run = db.get(PublicRun, run_id) if claimed == 1 else None
        if run is None:
            return  # replaced, forgotten, or taken by another delivery of the same task
        slug, code, input_json = run.problem_slug, run.code, run.input_json
    if input_json is None:
        assert code is not None  # start() refuses a Run of the public cases without code
        result = _judge_public(judge, problems, slug, code, run_id)
    else:
        result = _try_input(judge, problems, slug, code, input_json, run_id)
    try:
        _finish(sessions, run_id, result)
    except Exception:  # the result could not be stored: store that the judge failed instead
        log.exception("storing run %s of %s failed", run_id, slug)
        _finish(sessions, run_id, _failed(slug, input_json, "the judge failed"))


def _finish(sessions: sessionmaker[Session], run_id: str, result: dict[str, Any]) -> None:
    # ASCII-escaped strict JSON: whatever text a result quotes (a lone surrogate, a NUL)
    # is stored by every database, and every browser parses what it reads back.
    text = json.dumps(result, ensure_ascii=True, allow_nan=False)
    with transaction(sessions) as db:
        db.execute(
            update(PublicRun)
            .where(PublicRun.id == run_id, PublicRun.status == RUNNING)
            .values(status=DONE, report_json=text, finished_at=utcnow())
        )


def _failed(slug: str, input_json: str | None, detail: str) -> dict[str, Any]:
    """The learner's view of a run the judge could not finish (lost, or not stored): an IE
    report saying `detail` for a Run, "the judge could not run your input" for an input."""
    if input_json is None:
        return dict(internal_error(slug, None, detail).to_dict())
    failed = messages.say("input.judge_failed")
    return CustomRun(json.loads(input_json), reference_failure=failed).to_dict()


def _judge_public(
    judge: core_seam.Judge,
    problems: Callable[[str], ProblemSpec],
    slug: str,
    code: str,
    run_id: str,
) -> dict[str, Any]:
    try:
        report = core_seam.judge_public(judge, problems(slug), code)
    except Exception as exc:  # the problem is gone, or the judge broke outside a report
        log.exception("public run %s of %s failed", run_id, slug)
        report = internal_error(slug, None, f"the judge failed: {type(exc).__name__}")
    return dict(report.to_dict())


def _try_input(
    judge: core_seam.Judge,
    problems: Callable[[str], ProblemSpec],
    slug: str,
    code: str | None,
    input_json: str,
    run_id: str,
) -> dict[str, Any]:
    try:
        problem = problems(slug)
    except Exception:  # the problem is gone since the run started
        log.exception("custom input %s of %s failed", run_id, slug)
        return _failed(slug, input_json, "the problem is gone")
    args = json.loads(input_json)  # read once already, where the request arrived
    return core_seam.try_input(judge, problem, args, code)


def _log_failure(job: Future[None]) -> None:
    """A run whose job raised stays running until it is given up as lost: say why, once."""
    if not job.cancelled() and job.exception() is not None:
        log.error("a public run failed", exc_info=job.exception())


class LocalRunDispatch:
    """The embedded queue's runs: `slots` threads in this process."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        problems: Callable[[str], ProblemSpec],
        judge: core_seam.Judge,
        slots: int,
    ) -> None:
        self._sessions = sessions
        self._problems = problems
        self._judge = judge
        self._executor = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="public-run")

    def send(self, run_id: str, problem: ProblemSpec) -> None:
        job = self._executor.submit(judge_run, self._sessions, self._problems, self._judge, run_id)
        job.add_done_callback(_log_failure)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
