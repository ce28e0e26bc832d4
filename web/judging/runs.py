"""Public runs: Run for a torch-tier problem, judged on the server on the public cases only,
and "Try your own input": a learner's own arguments on the reference (and, for a torch-tier
problem, on their code; a browser-tier page runs the code itself on the reference's answer).

A run is practice feedback, not a submission: it is never an attempt and never reaches a
board. It shares the judge with submissions, so it is bounded: `slots` runs are judged at
once in all, and one learner holds at most one run, running or waiting, at a time. A run
that finds every slot taken waits in line (first come, first served, so each learner's one
run gets its turn) and its learner sees their place; past `waiting` runs in line, it is
refused at once (429 runs_busy). A slot frees when its run ends, or within `RUN_LEASE_S`
when the process judging it dies: a run's claim is a lease, renewed while it is judged.

A run is a row (web.store.models.PublicRun), so that behind several server processes the one
that answers a poll knows the run another started, and whichever worker judges it (this
process's threads on the embedded queue, a `judge worker` on Celery) writes its report
where all of them read it. A learner polls their run by an unguessable id, sees only their
own, and keeps only their latest run, for `keep_s` seconds after it finished. Each start and
each poll moves the line: a run whose slot came free is started there."""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from judge import messages
from judge.errors import UnknownProblem
from judge.problem.spec import ProblemSpec
from judge.run.custom_run import CustomRun
from judge.run.judge_source import internal_error
from judge.run.phase import Phase, Stage
from web.errors import NotFound, RateLimited
from web.i18n import say
from web.judging import core_seam
from web.judging.lease import KEEPER, Lease
from web.store.db import changed, transaction, utcnow
from web.store.models import PublicRun
from web.store.status import RunStatus

QUEUED, RUNNING, DONE = RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.DONE
# What a refused run is told to wait: a torch run takes seconds to tens of seconds.
BUSY_RETRY_S = 5
# A run sent to be judged but not yet taken by a worker is given up as lost this long after
# its problem's own time limit (the queue behind it was long, or no worker is there).
LOST_AFTER_S = 120.0
# A run a worker has taken holds its slot under a lease renewed while it is judged: a worker
# that dies frees the slot within this long, and its learner reads that it was lost.
RUN_LEASE_S = 10.0
# How long a run may wait in line for a slot before it is given up as lost.
WAIT_S = 900.0
LOST = "the judge stopped before this run finished; run it again"

log = logging.getLogger(__name__)


class RunDispatch(Protocol):
    """Gets a stored run judged: threads here, or a task for a worker."""

    def send(self, run_id: str, problem: ProblemSpec) -> None:
        """Raises if the run cannot be handed on (the caller then refuses it)."""
        ...

    def close(self) -> None: ...


def view(run: PublicRun, now: datetime, place: int | None = None) -> dict[str, Any]:
    """A run as its learner polls it: `report` for a Run of the public cases, `custom` (what
    judge.run.custom_run gave) for a learner's own input, once done; `place` in line (1:
    next) while it waits for a slot."""
    out: dict[str, Any] = {"id": run.id, "problem": run.problem_slug}
    lost = run.status != DONE and run.expires_at < now
    out["status"] = DONE if lost else run.status
    out["url"] = f"/api/runs/{run.id}"
    field = "report" if run.input_json is None else "custom"
    if lost:
        out[field] = _failed(run.problem_slug, run.input_json, LOST)
    elif run.report_json is not None:
        out[field] = json.loads(run.report_json)
    if run.status == QUEUED and not lost:
        out["place"] = place
    if run.status == RUNNING and not lost and run.progress_json is not None:
        out["progress"] = json.loads(run.progress_json)
    return out


def _live(now: datetime) -> Any:
    """Running or waiting, and neither lost nor ended."""
    return (PublicRun.status != DONE) & (PublicRun.expires_at >= now)


class PublicRuns:
    """Starts runs (stored, then dispatched, or in line for a slot) and answers for them."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        dispatch: RunDispatch,
        slots: int,
        *,
        waiting: int | None = None,
        problems: Callable[[str], ProblemSpec] | None = None,
        keep_s: float = 600.0,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if slots < 1:
            raise ValueError(f"public run slots must be at least 1, got {slots}")
        self._sessions = sessions
        self._dispatch = dispatch
        self._slots = slots
        self._waiting = 4 * slots if waiting is None else waiting
        self._problems = problems
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
        """Store and dispatch a run, or put it in line, or raise RateLimited
        (`run_in_progress`: the learner's earlier run is not done; `runs_busy`: the line is
        full). `input_json`: a learner's own arguments (JSON text, already read once), run
        instead of the public cases; `code` may then be None (the reference alone)."""
        if code is None and input_json is None:
            raise ValueError("a Run of the public cases needs code")
        self.advance()
        now = self._clock()
        with self._lock, transaction(self._sessions) as db:
            self._prune(db, now)
            live = _live(now)
            if db.scalar(select(PublicRun.id).where(live, PublicRun.user_id == user_id)):
                raise RateLimited(say("err_run_in_progress"), BUSY_RETRY_S, "run_in_progress")
            running = db.scalar(select(func.count()).where(live, PublicRun.status == RUNNING))
            waiting = db.scalar(select(func.count()).where(live, PublicRun.status == QUEUED))
            now_free = (running or 0) < self._slots and not waiting
            if not now_free and (waiting or 0) >= self._waiting:
                message = say("err_runs_busy", slots=self._slots)
                raise RateLimited(message, BUSY_RETRY_S, code="runs_busy")
            # One kept run per user: the new run replaces the old.
            db.execute(delete(PublicRun).where(PublicRun.user_id == user_id))
            run = PublicRun(
                id=secrets.token_urlsafe(12),
                user_id=user_id,
                problem_slug=problem.slug,
                code=code,
                input_json=input_json,
                status=RUNNING if now_free else QUEUED,
                created_at=now,
                expires_at=now + (_unclaimed(problem) if now_free else timedelta(seconds=WAIT_S)),
            )
            db.add(run)
        if now_free:
            self._send(run.id, problem)
            return view(run, now)
        return view(run, now, place=self._place(run.id))

    def get(self, user_id: int, run_id: str) -> dict[str, Any]:
        """The caller's run; NotFound for another user's, a forgotten or an unknown id."""
        self.advance()
        now = self._clock()
        with self._sessions() as db:
            run = db.get(PublicRun, run_id)
        if run is None or run.user_id != user_id or self._stale(run, now):
            message = say("err_unknown_run", minutes=f"{self._keep_s / 60:g}")
            raise NotFound("unknown_run", message, field="run")
        place = self._place(run.id) if run.status == QUEUED else None
        return view(run, now, place)

    def advance(self) -> list[str]:
        """Start the runs first in line for which a slot is free now (their places moved up);
        the ids started. Called on every start and poll, and when a run here ends."""
        if self._problems is None:
            return []
        started: list[tuple[str, str]] = []
        now = self._clock()
        with self._lock, transaction(self._sessions) as db:
            live = _live(now)
            running = db.scalar(select(func.count()).where(live, PublicRun.status == RUNNING))
            free = self._slots - (running or 0)
            if free <= 0:
                return []
            first = db.execute(
                select(PublicRun.id, PublicRun.problem_slug)
                .where(live, PublicRun.status == QUEUED)
                .order_by(PublicRun.created_at, PublicRun.id)
                .limit(free)
            ).all()
            for run_id, slug in first:
                try:
                    problem = self._problems(slug)
                except UnknownProblem:
                    continue  # its problem is gone: it waits out its time and is lost
                moved = changed(
                    db,
                    update(PublicRun)
                    .where(PublicRun.id == run_id, PublicRun.status == QUEUED)
                    .values(status=RUNNING, expires_at=now + _unclaimed(problem)),
                )
                if moved == 1:
                    started.append((run_id, slug))
        for run_id, slug in started:
            self._send(run_id, self._problems(slug))
        return [run_id for run_id, _ in started]

    def _send(self, run_id: str, problem: ProblemSpec) -> None:
        try:
            self._dispatch.send(run_id, problem)
        except Exception:
            with transaction(self._sessions) as db:
                db.execute(delete(PublicRun).where(PublicRun.id == run_id))
            raise

    def _place(self, run_id: str) -> int:
        """Its place in line: 1 + the live runs waiting that came before it."""
        now = self._clock()
        with self._sessions() as db:
            mine = db.get(PublicRun, run_id)
            if mine is None:
                return 1
            ahead = db.scalar(
                select(func.count()).where(
                    _live(now),
                    PublicRun.status == QUEUED,
                    or_(
                        PublicRun.created_at < mine.created_at,
                        (PublicRun.created_at == mine.created_at) & (PublicRun.id < mine.id),
                    ),
                )
            )
        return 1 + (ahead or 0)

    def running(self) -> int:
        now = self._clock()
        with self._sessions() as db:
            live = _live(now) & (PublicRun.status == RUNNING)
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


def _unclaimed(problem: ProblemSpec) -> timedelta:
    """How long a sent run may wait for a worker to take it before it is lost."""
    return timedelta(seconds=problem.limits.total_time_s + LOST_AFTER_S)


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
    now = utcnow()
    with transaction(sessions) as db:
        claimed = changed(
            db,
            update(PublicRun)
            .where(
                PublicRun.id == run_id,
                PublicRun.status == RUNNING,
                PublicRun.claimed_by.is_(None),
                PublicRun.expires_at >= now,
            )
            .values(claimed_by=worker, expires_at=now + timedelta(seconds=RUN_LEASE_S)),
        )
        run = db.get(PublicRun, run_id) if claimed == 1 else None
        if run is None:
            return  # replaced, forgotten, lost, or taken by another delivery of the same task
        slug, code, input_json = run.problem_slug, run.code, run.input_json
    lease = Lease(sessions, RUN_LEASE_S, partial(_renew, run_id, worker), f"run {run_id}")
    with KEEPER.held(lease):
        if input_json is None:
            assert code is not None  # start() refuses a Run of the public cases without code
            result = _judge_public(judge, problems, slug, code, run_id, lease.progress)
        else:
            result = _try_input(judge, problems, slug, code, input_json, run_id)
    try:
        _finish(sessions, run_id, result)
    except Exception:  # the result could not be stored: store that the judge failed instead
        log.exception("storing run %s of %s failed", run_id, slug)
        _finish(sessions, run_id, _failed(slug, input_json, "the judge failed"))


def _renew(run_id: str, worker: str, db: Session, values: dict[str, Any]) -> int:
    """The lease keeper's write: the run's slot is held until `lease_until`, and where its
    judging has got to, once it moved (the page shows it as a submission's)."""
    columns: dict[str, Any] = {"expires_at": values["lease_until"]}
    if "progress_stage" in values:
        progress = Phase(
            Stage(values["progress_stage"]),
            values["progress_done"],
            values["progress_total"],
            values["progress_step"],
            values["progress_of"],
        )
        columns["progress_json"] = json.dumps(progress.to_dict())
    return changed(
        db,
        update(PublicRun)
        .where(PublicRun.id == run_id, PublicRun.status == RUNNING, PublicRun.claimed_by == worker)
        .values(**columns),
    )


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
    progress: core_seam.Progress | None = None,
) -> dict[str, Any]:
    try:
        report = core_seam.judge_public(judge, problems(slug), code, progress)
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
    """The embedded queue's runs: `slots` threads in this process. `then` is called after
    each run (the next in line may start: PublicRuns.advance)."""

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
        self.then: Callable[[], object] | None = None

    def send(self, run_id: str, problem: ProblemSpec) -> None:
        job = self._executor.submit(self._run, run_id)
        job.add_done_callback(_log_failure)

    def _run(self, run_id: str) -> None:
        try:
            judge_run(self._sessions, self._problems, self._judge, run_id)
        finally:
            if self.then is not None:
                self.then()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
