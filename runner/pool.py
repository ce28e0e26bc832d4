"""Warm workers waiting for jobs, or one fresh worker per job ("cold").

Every warm worker is started from one long-lived spawner thread: bubblewrap's
--die-with-parent follows the thread that started it, so a warm worker must not be
tied to a request thread that may end. A worker that ran a job is reused only if the job ended
cleanly (its keeper reported status 0); anything odd retires it and a replacement is
started in the background.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from runner.identity import SandboxIdentity
from runner.layout import SandboxLayout
from runner.worker_process import WorkerError, WorkerProcess

ACQUIRE_TIMEOUT_S = 120.0
MAX_JOBS_PER_WORKER = 500  # retire now and then: bounds whatever a worker might accumulate


class WorkerPool:
    """`size` warm workers (size > 0), or a fresh worker for every job (size == 0)."""

    def __init__(
        self,
        layout: SandboxLayout,
        identity: SandboxIdentity,
        preload: tuple[str, ...],
        size: int,
    ) -> None:
        if size < 0:
            raise ValueError(f"pool size must be >= 0, got {size}")
        self.layout = layout
        self.identity = identity
        self.preload = preload
        self.size = size
        self._idle: queue.Queue[WorkerProcess | None] = queue.Queue()
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-spawner")
        self._closed = False
        self._lock = threading.Lock()
        self._all: set[WorkerProcess] = set()
        self.started = 0  # workers started so far (replacements included)
        starts = [self._spawn_async() for _ in range(size)]
        for started in starts:
            started.result()  # surface a broken sandbox at construction, not on the first job

    @property
    def warm(self) -> bool:
        return self.size > 0

    def workers(self) -> tuple[WorkerProcess, ...]:
        """Every worker this pool holds now, idle or running a job (a snapshot)."""
        with self._lock:
            return tuple(self._all)

    def _start(self, preload: tuple[str, ...] | None = None) -> WorkerProcess:
        chosen = self.preload if preload is None else preload
        worker = WorkerProcess(self.layout, self.identity, chosen, warm=self.warm)
        with self._lock:
            self._all.add(worker)
            self.started += 1
        return worker

    def _spawn_async(self) -> Future[None]:
        def spawn() -> None:
            try:
                self._idle.put(self._start())
            except WorkerError:
                self._idle.put(None)  # wakes a waiter, who then tries again itself
                raise

        return self._spawner.submit(spawn)

    def acquire(self, cold_preload: tuple[str, ...] | None = None) -> WorkerProcess:
        """An idle warm worker, or (cold) a newly started one importing `cold_preload`."""
        if self._closed:
            raise WorkerError("the worker pool is closed")
        if not self.warm:
            # Started from the calling thread, which outlives the job it is for; starting
            # cold workers in the one spawner thread would serialise concurrent jobs.
            return self._start(cold_preload)
        while True:
            try:
                worker = self._idle.get(timeout=ACQUIRE_TIMEOUT_S)
            except queue.Empty:
                raise WorkerError("no warm worker became free in time") from None
            if worker is None:
                self._spawn_async()
                continue
            if worker.alive():
                return worker
            self._discard(worker)
            self._spawn_async()

    def release(self, worker: WorkerProcess, healthy: bool) -> None:
        """Back to the idle queue if healthy and warm; otherwise retire and replace it."""
        keep = healthy and self.warm and not self._closed and worker.alive()
        if keep and worker.jobs_run < MAX_JOBS_PER_WORKER:
            self._idle.put(worker)
            return
        self._discard(worker)
        if self.warm and not self._closed:
            self._spawn_async()

    def _discard(self, worker: WorkerProcess) -> None:
        with self._lock:
            self._all.discard(worker)
        worker.close()

    def close(self) -> None:
        """Kill every worker and stop the spawner. Idempotent."""
        self._closed = True
        self._spawner.shutdown(wait=True)
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.close()
