"""The rate-limit stores against the `limits` library's moving window (issue 24): what each
keeps of the behaviour tests/web/test_ratelimit_stores.py pins, and the time per call.

Four limiters, one interface (`hit`, `check`, `record`):

- `hand/memory`, `hand/redis`: web/serving/ratelimit.py's `RateLimiter` and `RedisRateLimiter`;
- `limits/memory`, `limits/redis`: `limits.strategies.MovingWindowRateLimiter` (what
  Flask-Limiter's moving-window strategy runs) over `MemoryStorage` / `RedisStorage`,
  wrapped as below: `hit` is the library's hit, `check` its test, `record` its hit with the
  answer ignored, Retry-After from `get_window_stats` after a refusal.

Behaviour, on a clock the script steps (the library reads `time.time()` in its storage
modules, so there the module's `time` is replaced; the hand-written stores take `clock`):

1. two hits pass, the third is refused with Retry-After 6 (the suite's first test);
2. an event exactly one window old has left it;
3. `record` counts past the limit (failed log-ins: records at 0, 1, 2, 3 fill a window
   of 2 per 10 s until 12);
4. a window shorter than a second (the suite's 0.3 s test of the Redis clock);
5. two limiters whose clocks are 1.5 s apart share one window of 1 per 2 s on Redis, in
   real time: how many of their alternating hits pass in 1.9 s (1 is the limit).

Time: the median of N calls each, on a real clock, Redis on loopback: a hit that passes
(a new key each), a hit refused (with its Retry-After), a check.

    .venv/bin/python bench/bench_ratelimit.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import limits.storage.memory  # noqa: E402
import limits.storage.redis  # noqa: E402
from limits import RateLimitItemPerSecond  # noqa: E402
from limits.storage import MemoryStorage, RedisStorage  # noqa: E402
from limits.strategies import MovingWindowRateLimiter  # noqa: E402

from devtools.local_services import RedisServer  # noqa: E402
from web.config import RateLimit  # noqa: E402
from web.errors import RateLimited  # noqa: E402
from web.serving.ratelimit import Limiter, RateLimiter, RedisRateLimiter, limited  # noqa: E402

Clock = list[float]


class LibraryLimiter:
    """The `limits` moving window behind the stores' interface, as a port would write it."""

    def __init__(self, storage: MemoryStorage | RedisStorage) -> None:
        self._windows = MovingWindowRateLimiter(storage)
        self._storage = storage

    @staticmethod
    def _item(limit: RateLimit) -> RateLimitItemPerSecond:
        # The library's windows are whole multiples of a granularity (here one second).
        return RateLimitItemPerSecond(limit.count, max(1, round(limit.per_s)))

    def _refusal(self, key: str, limit: RateLimit, what: str) -> RateLimited:
        # A second call: the library's hit answers only yes or no.
        stats = self._windows.get_window_stats(self._item(limit), key)
        # The clock the library's storage read (library_clock replaces both modules' alike).
        return limited(limit, what, stats.reset_time - limits.storage.redis.time.time())

    def hit(self, key: str, limit: RateLimit, what: str) -> None:
        if not self._windows.hit(self._item(limit), key):
            raise self._refusal(key, limit, what)

    def check(self, key: str, limit: RateLimit, what: str) -> None:
        if not self._windows.test(self._item(limit), key):
            raise self._refusal(key, limit, what)

    def record(self, key: str, limit: RateLimit) -> None:
        self._windows.hit(self._item(limit), key)  # refused when full: not counted

    def close(self) -> None:
        if isinstance(self._storage, RedisStorage):
            self._storage.storage.close()


@contextmanager
def library_clock(now: Clock) -> Iterator[None]:
    """The library's storage modules read `time.time()`; give them the stepped clock."""
    fake = SimpleNamespace(time=lambda: now[0])
    saved = limits.storage.memory.time, limits.storage.redis.time
    limits.storage.memory.time = fake  # type: ignore[assignment]
    limits.storage.redis.time = fake  # type: ignore[assignment]
    try:
        yield
    finally:
        limits.storage.memory.time, limits.storage.redis.time = saved


def makers(redis_url: str) -> dict[str, Callable[[Clock | None], Limiter]]:
    def prefix() -> str:
        return f"bench:{uuid.uuid4().hex}:"

    return {
        "hand/memory": lambda now: RateLimiter(clock=(lambda: now[0]) if now else time.monotonic),
        "hand/redis": lambda now: RedisRateLimiter(
            redis_url, prefix=prefix(), clock=(lambda: now[0]) if now else None
        ),
        "limits/memory": lambda _now: LibraryLimiter(MemoryStorage()),
        "limits/redis": lambda _now: LibraryLimiter(RedisStorage(redis_url, key_prefix=prefix())),
    }


def refused_after(call: Callable[[], None]) -> int | None:
    try:
        call()
    except RateLimited as refused:
        return refused.retry_after
    return None


def counts_then_refuses(limiter: Limiter, now: Clock) -> str:
    two = RateLimit(2, 10.0)
    now[0] = 1000.0
    limiter.hit("k", two, "things")
    now[0] = 1004.0
    limiter.hit("k", two, "things")
    return f"Retry-After {refused_after(lambda: limiter.hit('k', two, 'things'))} (want 6)"


def the_boundary(limiter: Limiter, now: Clock) -> str:
    two = RateLimit(2, 10.0)
    now[0] = 0.0
    limiter.hit("k", two, "things")
    now[0] = 5.0
    limiter.hit("k", two, "things")
    now[0] = 10.0
    after = refused_after(lambda: limiter.hit("k", two, "things"))
    return "passes (want passes)" if after is None else f"refused, Retry-After {after}"


def records_past_the_limit(limiter: Limiter, now: Clock) -> str:
    two = RateLimit(2, 10.0)
    for moment in (0.0, 1.0, 2.0, 3.0):
        now[0] = moment
        limiter.record("k", two)
    now[0] = 11.5
    after = refused_after(lambda: limiter.check("k", two, "things"))
    return "passes (want refused, Retry-After 1)" if after is None else f"Retry-After {after}"


def sub_second(limiter: Limiter, now: Clock) -> str:
    short = RateLimit(1, 0.3)
    now[0] = 0.0
    limiter.hit("k", short, "things")
    now[0] = 0.31
    after = refused_after(lambda: limiter.hit("k", short, "things"))
    return "passes at 0.31 s (want passes)" if after is None else "refused at 0.31 s"


SCENARIOS = {
    "1 count, refuse, Retry-After": counts_then_refuses,
    "2 one window old has left": the_boundary,
    "3 record counts past the limit": records_past_the_limit,
    "4 a 0.3 s window": sub_second,
}


def skewed_clocks(name: str, redis_url: str) -> str:
    """Two limiters on one Redis key, one clock 1.5 s ahead: hits alternate for 1.9 s."""
    window = RateLimit(1, 2.0)
    key = f"skew:{uuid.uuid4().hex}"
    if name == "hand/redis":  # no clock given: both read the Redis server's TIME
        a: Limiter = RedisRateLimiter(redis_url)
        b: Limiter = RedisRateLimiter(redis_url)
    else:
        a = LibraryLimiter(RedisStorage(redis_url))
        b = LibraryLimiter(RedisStorage(redis_url))
    real = time.time
    ahead = SimpleNamespace(time=lambda: real() + 1.5)
    passed = 0
    started = time.monotonic()
    turn = 0
    while time.monotonic() - started < 1.9:  # within one window of the first hit
        limiter = (a, b)[turn % 2]
        if name != "hand/redis" and limiter is b:
            limits.storage.redis.time = ahead  # type: ignore[assignment]
        try:
            limiter.hit(key, window, "things")
            passed += 1
        except RateLimited:
            pass
        finally:
            limits.storage.redis.time = time  # type: ignore[assignment]
        turn += 1
        time.sleep(0.05)
    a.close()
    b.close()
    return f"{passed} passed in 1.9 s (limit 1)"


def median_us(calls: int, call: Callable[[int], None]) -> float:
    times = []
    for n in range(calls):
        started = time.perf_counter()
        call(n)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def timings(make: Callable[[Clock | None], Limiter], calls: int) -> tuple[float, ...]:
    limiter = make(None)
    roomy, one = RateLimit(calls * 4, 600.0), RateLimit(1, 600.0)
    limiter.hit("full", one, "things")

    def refused(_n: int) -> None:
        try:
            limiter.hit("full", one, "things")
        except RateLimited:
            pass

    medians = (
        median_us(calls, lambda n: limiter.hit(f"new:{n}", roomy, "things")),
        median_us(calls, refused),
        median_us(calls, lambda n: limiter.check("roomy", roomy, "things")),
    )
    limiter.close()
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder) / "redis")
        server.start()
        try:
            made = makers(server.url)
            print(f"{'scenario':34} " + " ".join(f"{name:>38}" for name in made))
            for title, scenario in SCENARIOS.items():
                cells = []
                for make in made.values():
                    now = [0.0]
                    limiter = make(now)
                    with library_clock(now):
                        cells.append(scenario(limiter, now))
                    limiter.close()
                print(f"{title:34} " + " ".join(f"{cell:>38}" for cell in cells))
            skew = {n: skewed_clocks(n, server.url) for n in ("hand/redis", "limits/redis")}
            print(
                f"{'5 clocks 1.5 s apart (Redis)':34} "
                + "  ".join(f"{n}: {v}" for n, v in skew.items())
            )
            print(f"\nmedian us per call over {args.calls}: hit passes / hit refused / check")
            for name, make in made.items():
                hit, refused, check = timings(make, args.calls)
                print(f"{name:16} {hit:8.1f} {refused:8.1f} {check:8.1f}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
