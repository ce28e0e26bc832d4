"""The judging queue on Celery: submission ids as tasks on a broker (Redis, or RabbitMQ),
routed by capability, taken by `judge worker` processes (web.judging.celery_worker).

A task carries only a submission id; the row in the database is the job. The worker
writes the verdict to the database through web.judging.jobs, exactly as the embedded queue does;
Celery's result backend is never used. Delivery is at least once (tasks are acknowledged
after they ran, and redelivered when their worker died); web.judging.jobs makes it recorded once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from celery import Celery
from kombu import Queue
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from judge.errors import UnknownProblem
from judge.problem.device import Device
from judge.problem.spec import ProblemSpec
from web.config import WebConfig
from web.errors import ApiError
from web.i18n import say
from web.judging.catalog import ProblemCatalog
from web.store.models import Submission

TASK_JUDGE = "judge.submission"
TASK_RUN = "judge.run"  # a public run (Run on the server), web.judging.runs
# How long a broker connection attempt may take when sending: a request that stores a
# submission must not hang on a broker that is down (the sweeper sends the row later).
SEND_TIMEOUT_S = 2.0
RUN_RETRY_S = 5

log = logging.getLogger(__name__)


class Capability(StrEnum):
    """What a worker can judge; each is a queue of its own."""

    CPU = "cpu"
    GPU = "gpu"  # also has an NVIDIA GPU; a gpu task never goes to a worker without one


def capability_for(problem: ProblemSpec) -> Capability:
    """A problem judged only on CUDA needs a GPU worker; any other runs on a CPU worker
    (which judges it on the CPU; a GPU worker judging it might choose CUDA)."""
    return Capability.CPU if Device.CPU in problem.devices else Capability.GPU


def route(
    sessions: sessionmaker[Session], catalog: ProblemCatalog, submission_id: int
) -> Capability:
    """The queue a submission belongs on: its problem's device (cpu if the problem is gone:
    any worker then stores the IE that says so)."""
    with sessions() as db:
        slug = db.scalar(select(Submission.problem_slug).where(Submission.id == submission_id))
    if slug is None:
        return Capability.CPU
    try:
        return capability_for(catalog.get(slug))
    except UnknownProblem:
        return Capability.CPU


def make_celery(config: WebConfig) -> Celery:
    """The Celery app both sides use: the server sends with it, workers consume with it."""
    app = Celery("judge", broker=config.broker_url, set_as_current=False)
    app.conf.update(
        task_queues=[Queue(c.value) for c in Capability],
        task_default_queue=Capability.CPU.value,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,  # verdicts go to the database, never to a result backend
        # Acknowledged once the job ran, not when it was received: a worker killed mid-job
        # leaves its task unacknowledged, and the broker delivers it again.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker holds no more tasks than it is running
        broker_connection_retry_on_startup=True,
        broker_connection_timeout=SEND_TIMEOUT_S,
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
        # Redis: an unacknowledged task is delivered again after this long. The lease and
        # the sweeper recover a dead worker's job well before; this is the broker's own net.
        broker_transport_options={"visibility_timeout": max(60.0, 10 * config.lease_s)},
        # A running job does not stop when the broker connection drops: its verdict goes to
        # the database, and its task, unacknowledged, is delivered again (a no-op claim).
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
    )
    return app


class CeleryQueue:
    """web.judging.jobqueue.JudgeQueue on Celery. `route(submission_id)` names the capability a
    submission needs (its problem's device), so callers enqueue ids, as with the embedded
    queue. Sending never raises: a broker that is down leaves the row queued in the
    database, and a worker's sweeper sends it again (web.judging.sweeper)."""

    def __init__(self, app: Celery, route: Callable[[int], Capability]) -> None:
        self.app = app
        self._route = route

    def enqueue(self, submission_id: int, delay_s: float = 0.0) -> None:
        try:
            capability = self._route(submission_id)
            options: dict[str, Any] = {"queue": capability.value}
            if delay_s > 0:
                options["countdown"] = delay_s
            self.app.send_task(TASK_JUDGE, args=[submission_id], **options)
        except Exception:  # the broker (or the row's problem) is unavailable right now
            log.warning(
                "submission %s stays queued: sending it failed", submission_id, exc_info=True
            )

    def start(self) -> None:
        """Nothing runs here: `judge worker` processes consume the queue."""

    def stop(self) -> None:
        self.app.close()


class CeleryRunDispatch:
    """web.judging.runs.RunDispatch on Celery: a run's id to its problem's queue. Unlike a
    submission, a run that cannot be sent is refused (503): nothing would resend it."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def send(self, run_id: str, problem: ProblemSpec) -> None:
        try:
            queue = capability_for(problem).value
            self.app.send_task(TASK_RUN, args=[run_id], queue=queue)
        except Exception as exc:
            log.warning("run %s refused: sending it failed (%s)", run_id, exc)
            message = say("err_runs_unavailable", retry=RUN_RETRY_S)
            raise ApiError(503, "runs_unavailable", message, retry_after=RUN_RETRY_S) from exc

    def close(self) -> None:
        """The app is closed with the submissions' queue, which shares it."""
