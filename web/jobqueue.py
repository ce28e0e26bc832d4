"""The judging queue. The platform only needs `enqueue(submission_id)`; the embedded
backend is a pool of threads in this process. A distributed backend implements the same
protocol (its workers call `web.jobs.run_job`)."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class JudgeQueue(Protocol):
    def enqueue(self, submission_id: int) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


class WorkerPool:
    """Threads that take submission ids and run `job(id)`; the job itself claims the row
    atomically, so an id queued twice is still judged once."""

    def __init__(self, job: Callable[[int], None], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._job = job
        self._workers = workers
        self._ids: queue.Queue[int | None] = queue.Queue()
        self._threads: list[threading.Thread] = []

    def enqueue(self, submission_id: int) -> None:
        self._ids.put(submission_id)

    def start(self) -> None:
        for n in range(self._workers):
            thread = threading.Thread(target=self._loop, name=f"judge-worker-{n}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        for _ in self._threads:
            self._ids.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    def join(self) -> None:
        """Wait until every queued id has been processed (tests and benchmarks)."""
        self._ids.join()

    def _loop(self) -> None:
        while True:
            submission_id = self._ids.get()
            try:
                if submission_id is None:
                    return
                self._job(submission_id)
            except Exception:
                # A job stores IE itself; reaching here means the database failed.
                log.exception("judging submission %s failed", submission_id)
            finally:
                self._ids.task_done()
