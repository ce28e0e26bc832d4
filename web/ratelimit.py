"""Sliding-window rate limits per key (a user id or an IP address), in process memory.
One server process serves the platform (waitress threads), so memory is the shared place;
a multi-process deployment would move this into the database or Redis."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from web.config import RateLimit
from web.errors import ApiError


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str, limit: RateLimit, what: str) -> None:
        """Count one event for `key`, or raise 429 saying when to retry."""
        now = self._clock()
        with self._lock:
            window = self._events.setdefault(key, deque())
            while window and window[0] <= now - limit.per_s:
                window.popleft()
            if len(window) >= limit.count:
                retry = max(1, math.ceil(window[0] + limit.per_s - now))
                raise ApiError(
                    429,
                    "rate_limited",
                    f"too many {what}: at most {limit.count} per {_span(limit.per_s)}; "
                    f"try again in {retry} s",
                    retry_after=retry,
                )
            window.append(now)
            if len(self._events) > 100_000:
                self._prune(now)

    def _prune(self, now: float) -> None:
        # Keys idle for an hour are dropped so that the table cannot grow without bound.
        stale = [k for k, w in self._events.items() if not w or w[-1] < now - 3600]
        for key in stale:
            del self._events[key]


def _span(seconds: float) -> str:
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return "hour" if hours == 1 else f"{hours} hours"
    if seconds % 60 == 0:
        minutes = int(seconds // 60)
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds:g} s"
