"""The two rate-limit stores mean the same: one suite runs on the in-memory limiter and on
the Redis one (a real redis-server, tests/services.py), both on a clock the test steps.
Then what only Redis does: one window shared by separate processes, on the Redis
server's clock, keys that expire, a restart survived, and a refusal (503, never 500)
while Redis cannot be reached."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask, g
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit

from devtools.local_services import RedisServer, free_port
from web import create_app
from web.config import RateLimit
from web.errors import ApiError, RateLimited, register_error_handlers
from web.serving.ratelimit import Limiter, RateLimiter, RedisRateLimiter, make_limiter

Clock = list[float]  # [now]: the test moves time by assigning now[0]
MakeLimiter = Callable[[Clock], Limiter]
LIMIT = RateLimit(2, 10.0)


@pytest.fixture(params=["memory", "redis"])
def make(request: pytest.FixtureRequest) -> Iterator[MakeLimiter]:
    made: list[Limiter] = []

    def build(now: Clock) -> Limiter:
        limiter: Limiter
        if request.param == "memory":
            limiter = RateLimiter(clock=lambda: now[0])
        else:
            url = request.getfixturevalue("redis_url")
            # A prefix of its own: the fake clock's times must not meet another test's.
            prefix = f"test:{uuid.uuid4().hex}:"
            limiter = RedisRateLimiter(url, prefix=prefix, clock=lambda: now[0])
        made.append(limiter)
        return limiter

    yield build
    for limiter in made:
        limiter.close()


def refusal(limiter: Limiter, key: str, limit: RateLimit = LIMIT) -> RateLimited:
    with pytest.raises(RateLimited) as refused:
        limiter.hit(key, limit, "things")
    return refused.value


def test_hits_pass_up_to_the_count_then_are_refused_saying_when(make: MakeLimiter) -> None:
    now = [1000.0]
    limiter = make(now)
    limiter.hit("k", LIMIT, "things")
    now[0] = 1004.0
    limiter.hit("k", LIMIT, "things")
    refused = refusal(limiter, "k")
    assert refused.retry_after == 6  # the first event leaves the window at 1010
    assert refused.code == "rate_limited"
    assert refused.message == "too many things: at most 2 per 10 s; try again in 6 s"


def test_the_window_slides_as_each_event_leaves_it(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    limiter.hit("k", LIMIT, "things")
    now[0] = 5.0
    limiter.hit("k", LIMIT, "things")
    now[0] = 9.999
    assert refusal(limiter, "k").retry_after == 1
    now[0] = 10.0  # the event at 0 is exactly one window old: it has left
    limiter.hit("k", LIMIT, "things")
    assert refusal(limiter, "k").retry_after == 5  # now the one at 5 is the oldest
    now[0] = 15.0
    limiter.hit("k", LIMIT, "things")


def test_a_refusal_is_not_counted(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    limiter.hit("k", LIMIT, "things")
    limiter.hit("k", LIMIT, "things")
    for _ in range(5):
        refusal(limiter, "k")
    now[0] = 10.0  # had the refusals counted, the window would still be full
    limiter.hit("k", LIMIT, "things")


def test_check_refuses_a_full_window_but_never_counts(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    for _ in range(10):
        limiter.check("k", LIMIT, "things")
    limiter.hit("k", LIMIT, "things")
    limiter.hit("k", LIMIT, "things")  # the checks left the window empty
    with pytest.raises(RateLimited) as refused:
        limiter.check("k", LIMIT, "things")
    assert refused.value.retry_after == 10


def test_record_counts_even_past_the_limit(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    for moment in (0.0, 1.0, 2.0, 3.0):
        now[0] = moment
        limiter.record("k", LIMIT)  # failed log-ins are counted whatever the count
    now[0] = 11.5  # 0 and 1 have left; 2 and 3 still fill the window
    with pytest.raises(RateLimited) as refused:
        limiter.check("k", LIMIT, "things")
    assert refused.value.retry_after == 1  # ceil(12 - 11.5)
    now[0] = 12.0
    limiter.check("k", LIMIT, "things")


def test_retry_after_rounds_up_and_is_never_below_one_second(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    one = RateLimit(1, 60.0)
    limiter.hit("k", one, "things")
    now[0] = 0.25
    assert refusal(limiter, "k", one).retry_after == 60  # 59.75 s rounds up
    now[0] = 59.999
    assert refusal(limiter, "k", one).retry_after == 1


def test_keys_have_windows_of_their_own(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    limiter.hit("user:1", LIMIT, "things")
    limiter.hit("user:1", LIMIT, "things")
    refusal(limiter, "user:1")
    limiter.hit("user:2", LIMIT, "things")
    limiter.hit("ip:user:1", LIMIT, "things")


def test_the_refusal_speaks_the_requests_language(make: MakeLimiter) -> None:
    now = [0.0]
    limiter = make(now)
    limiter.hit("k", RateLimit(1, 3600.0), "things")
    with Flask(__name__).test_request_context():
        g.lang = "zh"
        with pytest.raises(RateLimited) as refused:
            limiter.hit("k", RateLimit(1, 3600.0), "提交")
    assert refused.value.message == "提交过多：每小时最多 1 次；请在 3600 秒后重试"


# -- Redis only ------------------------------------------------------------------------

SHARER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from web.config import RateLimit
    from web.errors import RateLimited
    from web.serving.ratelimit import RedisRateLimiter

    url, key, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    limiter = RedisRateLimiter(url)
    deadline = time.monotonic() + 120
    while not go.exists() and time.monotonic() < deadline:  # start together
        time.sleep(0.01)
    passed = refused = 0
    for _ in range(20):
        try:
            limiter.hit(key, RateLimit(25, 600.0), "things")
            passed += 1
        except RateLimited:
            refused += 1
    print(json.dumps({"passed": passed, "refused": refused}))
    """
)


def test_two_processes_share_one_window_through_redis(redis_url: str, tmp_path: Path) -> None:
    go = tmp_path / "go"
    argv = [sys.executable, "-c", SHARER, redis_url, "shared-key", str(go)]
    workers = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    go.touch()
    results = []
    for worker in workers:
        out, _ = worker.communicate(timeout=180)
        assert worker.returncode == 0
        results.append(json.loads(out))
    # 40 tries in all against one window of 25: in process memory each would pass 20.
    assert sum(r["passed"] for r in results) == 25
    assert sum(r["refused"] for r in results) == 15


def test_the_window_slides_on_the_redis_servers_clock(redis_url: str) -> None:
    limiter = RedisRateLimiter(redis_url)
    short = RateLimit(1, 0.3)
    key = f"clock:{uuid.uuid4().hex}"
    started = time.monotonic()
    limiter.hit(key, short, "things")
    deadline = started + 60
    while True:  # polled: how soon it passes depends only on the window, not on this loop
        try:
            limiter.hit(key, short, "things")
            break
        except RateLimited as refused:
            assert refused.retry_after == 1
            assert time.monotonic() < deadline, "the window never slid"
            time.sleep(0.02)
    assert time.monotonic() - started >= 0.3 - 0.01  # the same machine's two clocks
    limiter.close()


def test_events_are_stamped_by_the_redis_servers_clock_not_the_processs(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Processes whose clocks disagree share one window only if none of them stamps an
    event with its own clock (the `limits` library does: bench/bench_ratelimit.py)."""
    prefix = f"stamp:{uuid.uuid4().hex}:"
    limiter = RedisRateLimiter(redis_url, prefix=prefix)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600)  # this process is an hour ahead
    limiter.record("k", RateLimit(5, 60.0))
    monkeypatch.undo()
    with redis.Redis.from_url(redis_url) as client:
        seconds, micros = client.time()
        [(_, stamped_us)] = client.zrange(prefix + "k", 0, -1, withscores=True)
    assert 0 <= seconds * 1_000_000 + micros - stamped_us < 30_000_000
    limiter.close()


def test_a_window_expires_in_redis_once_its_events_are_old(redis_url: str) -> None:
    limiter = RedisRateLimiter(redis_url, prefix="expiry:")
    limiter.record("k", RateLimit(5, 60.0))
    with redis.Redis.from_url(redis_url) as client:
        ttl_ms = client.pttl("expiry:k")
        limiter.check("never-recorded", RateLimit(5, 60.0), "things")
        assert client.exists("expiry:never-recorded") == 0  # a check writes nothing
    assert 30_000 < ttl_ms <= 61_000  # the window and a second; a loaded machine is slow
    limiter.close()


def test_windows_survive_a_redis_restart_and_the_limiter_reconnects(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        limiter = RedisRateLimiter(server.url)
        limit = RateLimit(2, 600.0)
        limiter.hit("k", limit, "things")
        limiter.hit("k", limit, "things")
        server.restart()  # the pooled connection is now dead; the append-only file is not
        with pytest.raises(RateLimited):
            limiter.hit("k", limit, "things")
        limiter.hit("other", limit, "things")
        limiter.close()
    finally:
        server.stop()


def limited_app(limiter: Limiter) -> Flask:
    app = Flask(__name__)
    register_error_handlers(app)

    @app.post("/api/try")
    def attempt() -> dict[str, bool]:
        limiter.hit("k", RateLimit(5, 60.0), "things")
        return {"ok": True}

    return app


def test_while_redis_is_down_requests_are_refused_with_503_and_resume_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = RedisServer(tmp_path / "redis")
    server.start()
    limiter = RedisRateLimiter(server.url)
    client = limited_app(limiter).test_client()
    try:
        assert client.post("/api/try").status_code == 200
        server.stop()
        started = time.monotonic()
        down = client.post("/api/try")
        assert time.monotonic() - started < 10  # a refused connection, not a hang
        assert down.status_code == 503
        assert down.headers["Retry-After"] == "5"
        assert down.json is not None
        assert down.json["error"]["code"] == "limits_unavailable"
        assert "try again in 5 s" in down.json["error"]["message"]
        assert "rate limits unavailable" in caplog.text
        server.start()  # the same port: the limiter's URL is right again
        assert client.post("/api/try").status_code == 200
    finally:
        limiter.close()
        server.stop()


def test_a_redis_that_was_never_there_refuses_every_kind_of_call() -> None:
    limiter = RedisRateLimiter(f"redis://127.0.0.1:{free_port()}/0")
    calls: list[Callable[[], None]] = [
        lambda: limiter.hit("k", LIMIT, "things"),
        lambda: limiter.check("k", LIMIT, "things"),
        lambda: limiter.record("k", LIMIT),
    ]
    for call in calls:
        with pytest.raises(ApiError) as refused:
            call()
        assert (refused.value.status, refused.value.retry_after) == (503, 5)
    limiter.close()


def test_make_limiter_keeps_memory_by_default_and_shares_redis_when_configured(
    tmp_path: Path, db_template: Path, problems_root: Path, redis_url: str
) -> None:
    config = make_config(tmp_path, db_template, problems_root)
    assert isinstance(make_limiter(config), RateLimiter)
    shared = config.with_(ratelimit_url=redis_url)
    one, two = make_limiter(shared), make_limiter(shared)  # as two server processes would
    limit = RateLimit(1, 600.0)
    one.hit("make-limiter", limit, "things")
    with pytest.raises(RateLimited):
        two.hit("make-limiter", limit, "things")
    one.close()
    two.close()


# -- through the app ----------------------------------------------------------------------


def test_two_server_processes_share_a_learners_submission_limit(
    tmp_path: Path, db_template: Path, problems_root: Path, redis_url: str
) -> None:
    """Two apps over one database and one Redis, as two `judge serve` processes."""
    config = make_config(
        tmp_path,
        db_template,
        problems_root,
        ratelimit_url=redis_url,
        submit_per_user=RateLimit(2, 600.0),
        start_workers=False,
    )
    one, two = create_app(config), create_app(config)
    try:
        first, second = one.test_client(), two.test_client()
        ada = make_user(first, "ada")
        codes = [f"{GOOD}\n# try {n}\n" for n in range(3)]  # three different submissions
        submit(first, ada, codes[0])
        submit(second, ada, codes[1])
        refused = second.post(
            "/api/submissions", json={"problem": "add-two", "code": codes[2]}, headers=ada.auth
        )
        assert refused.status_code == 429
        assert (
            refused.json is not None
            and "at most 2 per 10 minutes" in refused.json["error"]["message"]
        )
    finally:
        state(one).close()
        state(two).close()


def test_with_redis_unreachable_log_ins_get_503_and_reading_still_works(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    config = make_config(
        tmp_path, db_template, problems_root, ratelimit_url=dead, start_workers=False
    )
    app = create_app(config)
    try:
        client = app.test_client()
        register = client.post("/api/register", json={"username": "ada", "password": "pw-pw-pw-pw"})
        assert register.status_code == 503
        assert register.headers["Retry-After"] == "5"
        assert register.json is not None and register.json["error"]["code"] == "limits_unavailable"
        zh = client.post(
            "/api/token",
            json={"username": "ada", "password": "pw-pw-pw-pw"},
            headers={"Accept-Language": "zh-CN"},
        )
        assert zh.status_code == 503
        assert zh.json is not None and "秒后重试" in zh.json["error"]["message"]
        assert client.get("/api/problems").status_code == 200
        assert client.get("/").status_code == 200
    finally:
        state(app).close()
