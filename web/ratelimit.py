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
from web.errors import RateLimited
from web.i18n import say


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str, limit: RateLimit, what: str) -> None:
        """Count one event for `key`, or raise RateLimited saying when to retry."""
        self.check(key, limit, what)
        self.record(key, limit)

    def check(self, key: str, limit: RateLimit, what: str) -> None:
        """Raise RateLimited if `key` has used up `limit`, without counting an event (for limits
        that count only failures: check first, record once the attempt has failed)."""
        now = self._clock()
        with self._lock:
            window = self._window(key, limit, now)
            if len(window) >= limit.count:
                retry = max(1, math.ceil(window[0] + limit.per_s - now))
                message = say(
                    "err_rate", what=what, count=limit.count, span=_span(limit.per_s), retry=retry
                )
                raise RateLimited(message, retry)

    def record(self, key: str, limit: RateLimit) -> None:
        """Count one event for `key`, whether or not the limit is reached."""
        now = self._clock()
        with self._lock:
            self._window(key, limit, now).append(now)
            if len(self._events) > 100_000:
                self._prune(now)

    def _window(self, key: str, limit: RateLimit, now: float) -> deque[float]:
        window = self._events.setdefault(key, deque())
        while window and window[0] <= now - limit.per_s:
            window.popleft()
        return window

    def _prune(self, now: float) -> None:
        # Keys idle for an hour are dropped so that the table cannot grow without bound.
        stale = [k for k, w in self._events.items() if not w or w[-1] < now - 3600]
        for key in stale:
            del self._events[key]


def _span(seconds: float) -> str:
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return say("span_hour") if hours == 1 else say("span_hours", n=hours)
    if seconds % 60 == 0:
        minutes = int(seconds // 60)
        return say("span_minute") if minutes == 1 else say("span_minutes", n=minutes)
    return say("span_seconds", n=f"{seconds:g}")
