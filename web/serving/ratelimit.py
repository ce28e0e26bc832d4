"""Sliding-window rate limits per key (a user id or an IP address).

Two stores with one meaning: `RateLimiter` counts in this process's memory (the default:
one `judge serve` process, its waitress threads sharing it), and `RedisRateLimiter`
counts in Redis, so that every server process behind one address shares each window
(JUDGE_RATELIMIT_URL). `make_limiter` picks one from the config."""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from web.config import RateLimit, WebConfig
from web.errors import ApiError, RateLimited
from web.i18n import say

if TYPE_CHECKING:  # redis-py comes with the cluster extra; imported only where it is used
    import redis

log = logging.getLogger(__name__)


class Limiter(Protocol):
    """What the request handlers call; both stores implement it with the same meaning."""

    def hit(self, key: str, limit: RateLimit, what: str) -> None:
        """Count one event for `key`, or raise RateLimited saying when to retry."""
        ...

    def check(self, key: str, limit: RateLimit, what: str) -> None:
        """Raise RateLimited if `key` has used up `limit`, without counting an event."""
        ...

    def record(self, key: str, limit: RateLimit) -> None:
        """Count one event for `key`, whether or not the limit is reached."""
        ...

    def close(self) -> None:
        """Release what the store holds (connections); the limiter is not used after."""
        ...


def make_limiter(config: WebConfig) -> Limiter:
    """Redis when `config.ratelimit_url` is set (every server process shares the
    windows), else this process's memory."""
    if not config.ratelimit_url:
        return RateLimiter()
    return RedisRateLimiter(config.ratelimit_url)


def limited(limit: RateLimit, what: str, retry_s: float) -> RateLimited:
    """The error for a used-up limit, `retry_s` seconds before its oldest event leaves
    the window: the same message and Retry-After whichever store counted."""
    retry = max(1, math.ceil(retry_s))
    message = say("err_rate", what=what, count=limit.count, span=_span(limit.per_s), retry=retry)
    return RateLimited(message, retry)


class RateLimiter:
    """The windows in this process's memory, as deques of event times."""

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
                raise limited(limit, what, window[0] + limit.per_s - now)

    def record(self, key: str, limit: RateLimit) -> None:
        """Count one event for `key`, whether or not the limit is reached."""
        now = self._clock()
        with self._lock:
            self._window(key, limit, now).append(now)
            if len(self._events) > 100_000:
                self._prune(now)

    def close(self) -> None:
        pass  # nothing outside this process to let go of

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


# One call is one atomic step in Redis: drop the events that have left the window, refuse
# if it is full (saying how long until its oldest event leaves), else count one. Times are
# whole microseconds from the Redis server's clock, so server processes whose clocks
# disagree still share one window. Lua 5.1 prints numbers past 14 digits in exponent form,
# so every time goes to Redis through %.0f.
#   KEYS[1] the window: a sorted set of event ids, each scored by its time
#   ARGV[1] the window's length (us); ARGV[2] the limit; ARGV[3] "1" to refuse when full
#   ARGV[4] an event id to count ("" counts none); ARGV[5] now (us) ("" asks Redis's TIME)
# -> {1, 0} counted or allowed, {0, us until the oldest event leaves} refused
WINDOW_SCRIPT = """
if redis.replicate_commands then redis.replicate_commands() end
local now
if ARGV[5] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[5])
end
local span = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - span))
if ARGV[3] == '1' and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + span - now}
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[4])
  -- An idle key goes away by itself once its last event has left the window.
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(span / 1000) + 1000))
end
return {1, 0}
"""
KEY_PREFIX = "judge:ratelimit:"
# Seconds a client is told to wait when the limits cannot be checked (Redis unreachable).
UNAVAILABLE_RETRY_S = 5


class RedisRateLimiter:
    """The windows in Redis, shared by every process that points at the same server.

    Where Redis cannot be reached, a request that needs a limit fails closed: it is
    refused with 503 `limits_unavailable` and a Retry-After, and a warning is logged. The
    limits guard log-ins against password guessing and the judge against floods; failing
    open would switch both off for anyone able to make Redis unreachable, while failing
    closed stops only log-ins, registrations, submissions and server runs (every page
    and read still answers) until Redis is back. A stuck Redis costs a request at most
    about two `timeout_s` (one reconnect, no backoff), never a hung thread."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = KEY_PREFIX,
        timeout_s: float = 2.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """`clock` (seconds) replaces the Redis server's TIME: tests step time by hand."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._errors: tuple[type[Exception], ...] = (
            redis.ConnectionError,  # BusyLoadingError too: Redis still reading its AOF
            redis.TimeoutError,
        )
        self._redis: redis.Redis = redis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            # One quick retry: a pooled connection that Redis's restart closed fails once.
            retry=Retry(NoBackoff(), 1),
            health_check_interval=30,
        )
        self._script = self._redis.register_script(WINDOW_SCRIPT)
        self._prefix = prefix
        self._clock = clock

    def hit(self, key: str, limit: RateLimit, what: str) -> None:
        self._call(key, limit, what, count=True)

    def check(self, key: str, limit: RateLimit, what: str) -> None:
        self._call(key, limit, what, count=False)

    def record(self, key: str, limit: RateLimit) -> None:
        self._call(key, limit, None, count=True)

    def close(self) -> None:
        self._redis.close()

    def _call(self, key: str, limit: RateLimit, what: str | None, *, count: bool) -> None:
        """`what` None: count without refusing (record); else refuse when full, and count
        as well if `count` (hit) or not (check)."""
        now = "" if self._clock is None else f"{round(self._clock() * 1_000_000)}"
        args = [
            round(limit.per_s * 1_000_000),
            limit.count,
            "0" if what is None else "1",
            uuid.uuid4().hex if count else "",
            now,
        ]
        try:
            allowed, wait_us = self._script(keys=[self._prefix + key], args=args)
        except self._errors as exc:
            log.warning("rate limits unavailable (%s: %s); refusing", type(exc).__name__, exc)
            raise ApiError(
                503,
                "limits_unavailable",
                say("err_limits_unavailable", retry=UNAVAILABLE_RETRY_S),
                retry_after=UNAVAILABLE_RETRY_S,
            ) from exc
        if not allowed:
            raise limited(limit, what or "", int(wait_us) / 1_000_000)


def _span(seconds: float) -> str:
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return say("span_hour") if hours == 1 else say("span_hours", n=hours)
    if seconds % 60 == 0:
        minutes = int(seconds // 60)
        return say("span_minute") if minutes == 1 else say("span_minutes", n=minutes)
    return say("span_seconds", n=f"{seconds:g}")
