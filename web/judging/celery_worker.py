"""`judge worker`: one process that takes submissions from the Celery queues it can serve,
judges them in its own warm sandbox (web.judging.core_seam's judge, as the embedded queue does) and
writes each verdict to the database through web.judging.jobs. It also runs a sweeper.

Threads, not forked children, run the tasks: the runner's warm sandboxed workers belong to
this process, and each task borrows one. A gpu task reaching a worker without a GPU (a
misrouted message) is sent back to the gpu queue, never judged there.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import socket
import warnings
from typing import Any

from sqlalchemy.exc import OperationalError

from judge.problem.speed_spec import hardware
from web.config import WebConfig
from web.judging import fleet, jobs, runs
from web.judging.catalog import ProblemCatalog
from web.judging.celery_queue import (
    TASK_JUDGE,
    TASK_RUN,
    Capability,
    CeleryQueue,
    CeleryRunDispatch,
    capability_for,
    make_celery,
    route,
)
from web.judging.core_seam import UNSAFE_LOCAL, make_judge
from web.judging.fleet import WorkerInfo
from web.judging.sweeper import Sweeper
from web.serving import logsafe
from web.serving.inputs import is_row_id
from web.store import migrate
from web.store.db import make_engine, make_sessions

GPU_NODES = "/dev/nvidia[0-9]*"
RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # web.judging.runs makes them with token_urlsafe
RETRY_DB_S = 2.0  # pause before a task whose database was unreachable runs again

log = logging.getLogger(__name__)


def gpu_nodes() -> tuple[str, ...]:
    return tuple(sorted(glob.glob(GPU_NODES)))


def parse_capabilities(text: str) -> tuple[Capability, ...]:
    """ "cpu,gpu" -> the capabilities, or ValueError naming the one that is not."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError("--queues needs at least one of: cpu, gpu")
    found = []
    for name in names:
        try:
            found.append(Capability(name))
        except ValueError:
            raise ValueError(f"unknown queue {name!r}: the queues are cpu and gpu") from None
    return tuple(dict.fromkeys(found))


def check_capabilities(capabilities: tuple[Capability, ...], gpus: tuple[str, ...]) -> None:
    if Capability.GPU in capabilities and not gpus:
        raise ValueError(
            "this machine has no NVIDIA GPU (no /dev/nvidia0...): a worker here cannot serve "
            "the gpu queue; start it with --queues cpu"
        )


def describe_protections(backend: str) -> str:
    """The sandbox's protections as measured by the runner's doctor (one probe job)."""
    if backend == UNSAFE_LOCAL:
        return "NONE: unsafe-local judge, submissions run without a sandbox"
    from runner.doctor import collect

    report = collect()
    probe = report.get("probe", {})
    if "error" in probe:
        return f"sandbox broken: {probe['error']}"
    isolated = [n for n in sorted(probe["ns"]) if probe["ns"][n] != probe["host_ns"][n]]
    cgroups = report["cgroups"]
    groups = (
        f"cgroups v{cgroups['version']} ({', '.join(cgroups['controllers'])})"
        if cgroups["version"]
        else f"no job cgroups ({cgroups['note']})"
    )
    return (
        f"{report['bwrap']}; namespaces {','.join(isolated)}; seccomp mode "
        f"{probe['seccomp']}; {groups}; jobs run as {report['identity']['user']}"
    )


def run_worker(
    config: WebConfig, capabilities: tuple[Capability, ...], concurrency: int, name: str = ""
) -> int:
    """Serve the queues until SIGTERM or SIGINT (a warm shutdown: running jobs finish)."""
    logsafe.install()  # a forged message's text reaches Celery's log lines too
    gpus = gpu_nodes()
    check_capabilities(capabilities, gpus)
    migrate.upgrade(config.database_url)  # a worker may start before any server has
    engine = make_engine(config.database_url)
    sessions = make_sessions(engine)
    catalog = ProblemCatalog(config.problems_dir)
    judge = make_judge(
        config.judge_backend,
        launcher=config.launcher,
        workers=concurrency,
        problems_dir=config.problems_dir,
        ready_seeds=config.ready_seeds,
        device=config.device,
        speed_spread_limit=config.speed_spread_limit,
    )
    name = name or f"{'+'.join(c.value for c in capabilities)}-{os.getpid()}@{socket.gethostname()}"
    info = WorkerInfo(
        name=name,
        queues=tuple(c.value for c in capabilities),
        cpu=hardware(config.judge_backend)["cpu"],
        cpus=os.cpu_count() or 1,
        gpus=gpus,
        protections=describe_protections(config.judge_backend),
    )
    print(info.line(), flush=True)
    fleet.register(sessions, info, config.sweep_every_s)
    # Celery warns about root, which matters for pickled messages; ours are JSON only, and
    # root is what lets the sandbox run each job as the unprivileged judge-sandbox user.
    warnings.filterwarnings("ignore", message="You're running the worker with superuser")
    celery = make_celery(config)
    queue = CeleryQueue(celery, lambda sid: route(sessions, catalog, sid))
    ctx = jobs.JobContext(
        sessions=sessions,
        problems=catalog,
        judge_seed=config.judge_seed,
        judge=judge,
        max_attempts=config.max_job_attempts,
        requeue=queue.enqueue,
        retry_delay_s=config.retry_delay_s,
        lease_s=config.lease_s,
        worker=name,
        judging_per_user=config.judging_per_user,
    )
    register_tasks(celery, ctx, queue, capabilities)
    sweeper = Sweeper(
        sessions,
        queue,
        config.requeue_after_s,
        config.sweep_every_s,
        beat=lambda: fleet.seen(sessions, name),
    )
    sweeper.start()
    worker = celery.Worker(
        hostname=name,
        pool_cls="threads",
        concurrency=concurrency,
        queues=[c.value for c in capabilities],
        loglevel="INFO",
        without_gossip=True,
        without_mingle=True,
        without_heartbeat=True,
    )
    try:
        worker.start()
    finally:
        sweeper.stop()
        fleet.stopped(sessions, name)
        judge.close()
        engine.dispose()
    return int(worker.exitcode or 0)


def register_tasks(
    celery: Any, ctx: jobs.JobContext, queue: CeleryQueue, capabilities: tuple[Capability, ...]
) -> None:
    """The judge and run tasks this worker serves, on `celery` (a message's argument is
    checked before it reaches the database)."""

    # shared=False: the tasks close over this worker's context, so they are this app's
    # alone (a shared task would be offered to every later app of the process too).
    @celery.task(  # type: ignore[untyped-decorator]
        name=TASK_JUDGE, bind=True, acks_late=True, max_retries=None, shared=False
    )
    def judge_submission(task: Any, submission_id: object) -> None:
        # Not a message of ours (not an int, or an id past the column's range, which
        # PostgreSQL would refuse with an error): dropped with one line, never judged.
        if not is_row_id(submission_id):
            log.error("dropping a judge task with argument %s", _brief(submission_id))
            return
        try:
            needed = route(ctx.sessions, ctx.problems, submission_id)
            if needed not in capabilities:
                log.warning("submission %s needs %s: sent back to its queue", submission_id, needed)
                queue.enqueue(submission_id)
                return
            jobs.run_job(ctx, submission_id)
        except OperationalError as exc:  # the database is unreachable: try again shortly
            raise task.retry(exc=exc, countdown=RETRY_DB_S) from exc

    @celery.task(name=TASK_RUN, acks_late=True, shared=False)  # type: ignore[untyped-decorator]
    def judge_public_run(run_id: object) -> None:
        if type(run_id) is not str or not RUN_ID.fullmatch(run_id):  # NUL, or no id of ours
            log.error("dropping a run task with argument %s", _brief(run_id))
            return
        problem = runs.problem_of(ctx.sessions, ctx.problems.get, run_id)
        if problem is not None and capability_for(problem) not in capabilities:
            log.warning("run %s needs %s: sent back to its queue", run_id, capability_for(problem))
            CeleryRunDispatch(celery).send(run_id, problem)
            return
        runs.judge_run(ctx.sessions, ctx.problems.get, ctx.judge, run_id, worker=ctx.worker)


def _brief(value: object) -> str:
    """A forged argument as one short log line (an int of 5,000 digits has no repr)."""
    try:
        shown = repr(value)
    except ValueError:
        shown = f"<{type(value).__name__}>"
    return shown if len(shown) <= 80 else shown[:77] + "..."
