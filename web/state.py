"""Everything the app holds for its lifetime, stored once in app.extensions."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from web.catalog import ProblemCatalog
from web.config import WebConfig
from web.jobqueue import JudgeQueue
from web.ratelimit import RateLimiter

EXTENSION = "judge_platform"


@dataclass(frozen=True, slots=True)
class PlatformState:
    config: WebConfig
    engine: Engine
    sessions: sessionmaker[Session]
    catalog: ProblemCatalog
    queue: JudgeQueue
    limiter: RateLimiter


def platform() -> PlatformState:
    state: PlatformState = current_app.extensions[EXTENSION]
    return state
