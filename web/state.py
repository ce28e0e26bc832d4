"""Everything the app holds for its lifetime, stored once in app.extensions."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from web.config import WebConfig
from web.judging.catalog import ProblemCatalog
from web.judging.core_seam import Judge
from web.judging.jobqueue import JudgeQueue
from web.judging.runs import PublicRuns
from web.serving.ratelimit import Limiter
from web.serving.streams import StreamSlots

EXTENSION = "judge_platform"


@dataclass(frozen=True, slots=True)
class PlatformState:
    config: WebConfig
    engine: Engine
    sessions: sessionmaker[Session]
    catalog: ProblemCatalog
    queue: JudgeQueue
    limiter: Limiter
    judge: Judge | None  # None on Celery: workers judge, not this process
    streams: StreamSlots
    runs: PublicRuns

    def close(self) -> None:
        """Stop the workers and the runs (letting running jobs finish), then release the
        judge and pool."""
        self.queue.stop()
        self.runs.close()
        if self.judge is not None:
            self.judge.close()
        self.limiter.close()
        self.engine.dispose()


def platform() -> PlatformState:
    state: PlatformState = current_app.extensions[EXTENSION]
    return state
