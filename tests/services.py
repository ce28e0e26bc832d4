"""Real Redis and PostgreSQL servers for the tests (devtools.local_services), one of each per
test session, in the session's temporary folder. tests/conftest.py makes these fixtures
visible everywhere; a test that asks for one is skipped, saying what is missing, only on
a machine without the binaries.

- `redis_server`: the session's RedisServer (restart() it only in a test that owns it:
  make one with RedisServer(tmp_path) instead).
- `redis_url`: its URL, the database emptied before the test.
- `postgres_server`: the session's PostgresServer (fsync off).
- `postgres_url`: a fresh, empty database on it for this test alone, dropped after.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from devtools.local_services import PostgresServer, RedisServer, missing_binaries

_databases = itertools.count(1)


def skip_unless_available(service: str) -> None:
    missing = missing_binaries([service])
    if missing:
        pytest.skip(f"no local {service} server on this machine: missing {', '.join(missing)}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    skip_unless_available("redis")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    import redis

    with redis.Redis.from_url(redis_server.url) as client:
        client.flushdb()
    return redis_server.url


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    skip_unless_available("postgres")
    server = PostgresServer(tmp_path_factory.mktemp("postgres"), durable=False)
    server.start()
    yield server
    server.destroy()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    name = f"judge_test_{next(_databases)}"
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)
