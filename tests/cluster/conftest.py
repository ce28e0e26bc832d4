"""The Celery deployment end to end: real Redis, PostgreSQL 15 and `judge worker` processes
(tests/cluster/cluster_harness.py); skipped, saying why, only where a binary is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_harness import Cluster

from devtools.local_services import RedisServer


@pytest.fixture
def cluster(tmp_path: Path, postgres_url: str) -> Iterator[Cluster]:
    """A whole deployment for one test, with a Redis of its own (a test may restart it)."""
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    cluster = Cluster(tmp_path, redis, postgres_url)
    yield cluster
    cluster.close()
    redis.stop()
