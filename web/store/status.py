"""Where a stored submission is in its life; its own module so that light callers (the
`judge submit` client) can name the states without importing the database layer."""

from __future__ import annotations

from enum import StrEnum


class SubmissionStatus(StrEnum):
    """Waiting, being judged, or judged (its verdict set)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"


class RunStatus(StrEnum):
    """A public run (Run on the server, never an attempt): waiting in line for a slot (at
    most one per learner), running, then done."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
