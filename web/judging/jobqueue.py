"""The judging queue. The platform only needs `enqueue(submission_id)`; the embedded
backend is a set of threads in this process. A distributed backend implements the same
protocol (its workers call `web.judging.jobs.run_job`)."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class JudgeQueue(Protocol):
    def enqueue(self, submission_id: int, delay_s: float = 0.0) -> None:
        """Queue `submission_id`, after `delay_s` seconds if given (an IE retry's pause)."""
        ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


class EmbeddedQueue:
    """Threads in this process that take submission ids and run `job(id)`; the job itself
    claims the row atomically, so an id queued twice is still judged once. A delayed id
    waits on a timer, not in a judging thread, so a retry's pause never stalls a worker."""

    def __init__(self, job: Callable[[int], None], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._job = job
        self._workers = workers
        self._ids: queue.Queue[int | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._timers: set[threading.Timer] = set()
        self._timers_lock = threading.Lock()

    def enqueue(self, submission_id: int, delay_s: float = 0.0) -> None:
        if delay_s <= 0:
            self._ids.put(submission_id)
            return
        timer = threading.Timer(delay_s, self._after_delay, args=(submission_id,))
        timer.daemon = True
        with self._timers_lock:
            self._timers.add(timer)
        timer.start()

    def _after_delay(self, submission_id: int) -> None:
        self._ids.put(submission_id)  # first: join() must never see neither timer nor id
        with self._timers_lock:
            self._timers = {t for t in self._timers if t is not threading.current_thread()}

    def start(self) -> None:
        for n in range(self._workers):
            thread = threading.Thread(target=self._loop, name=f"judge-worker-{n}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        # A row waiting for its retry stays 'queued' in the database: the next start
        # (web.judging.jobs.recover) queues it again.
        with self._timers_lock:
            timers, self._timers = list(self._timers), set()
        for timer in timers:
            timer.cancel()
        for _ in self._threads:
            self._ids.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    def join(self) -> None:
        """Wait until every queued id, delayed ones included, has been processed (tests and
        benchmarks)."""
        while True:
            self._ids.join()
            with self._timers_lock:
                pending = list(self._timers)
                if not pending and self._ids.unfinished_tasks == 0:
                    return
            for timer in pending:
                timer.join()

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
