"""The judging fleet: each `judge worker` registers what it is (its queues, hardware and
the sandbox's protections as measured at start) and renews `last_seen_at` on every sweep;
administrators list them (GET /api/admin/workers)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from web.store.db import iso, transaction, utcnow
from web.store.models import JudgeWorker

# A worker not seen for this many of its own heartbeats is shown as gone.
MISSED_BEATS = 3


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What a worker is, said at start and recorded with every verdict it stores."""

    name: str
    queues: tuple[str, ...]
    cpu: str
    cpus: int
    gpus: tuple[str, ...]
    protections: str

    def line(self) -> str:
        gpus = ", ".join(self.gpus) or "none"
        return (
            f"judge worker {self.name}: queues {','.join(self.queues)}; CPU {self.cpu} "
            f"x{self.cpus}; GPU {gpus}; protections: {self.protections}"
        )


def register(sessions: sessionmaker[Session], info: WorkerInfo, heartbeat_s: float) -> None:
    """Record `info` (a restarted worker of the same name replaces its old row)."""
    now = utcnow()
    with transaction(sessions) as db:
        db.execute(delete(JudgeWorker).where(JudgeWorker.name == info.name))
        db.add(
            JudgeWorker(
                name=info.name,
                queues=",".join(info.queues),
                cpu=info.cpu[:200],
                cpus=info.cpus,
                gpus=",".join(info.gpus),
                protections=info.protections,
                started_at=now,
                last_seen_at=now,
                heartbeat_s=heartbeat_s,
            )
        )


def seen(sessions: sessionmaker[Session], name: str) -> None:
    with transaction(sessions) as db:
        db.execute(
            update(JudgeWorker).where(JudgeWorker.name == name).values(last_seen_at=utcnow())
        )


def stopped(sessions: sessionmaker[Session], name: str) -> None:
    with transaction(sessions) as db:
        db.execute(update(JudgeWorker).where(JudgeWorker.name == name).values(stopped_at=utcnow()))


def listing(db: Session, now: datetime | None = None) -> list[dict[str, Any]]:
    """Every registered worker, newest first, with whether it is alive now."""
    now = now or utcnow()
    rows = db.scalars(select(JudgeWorker).order_by(JudgeWorker.started_at.desc())).all()
    out = []
    for row in rows:
        silent = now - row.last_seen_at > timedelta(seconds=MISSED_BEATS * row.heartbeat_s)
        out.append(
            {
                "name": row.name,
                "queues": row.queues.split(","),
                "cpu": row.cpu,
                "cpus": row.cpus,
                "gpus": [g for g in row.gpus.split(",") if g],
                "protections": row.protections,
                "started_at": iso(row.started_at),
                "last_seen_at": iso(row.last_seen_at),
                "stopped_at": iso(row.stopped_at),
                "alive": row.stopped_at is None and not silent,
            }
        )
    return out
