"""Fixtures of the site tests: a real Redis as the cache, which a test can take away."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.infra import PrivateRedis

#: the cache backend production gets from CACHE_URL=rediscache://... (keltis_site/settings.py)
PRODUCTION_REDIS_BACKEND = "keltis_site.cache.RedisCache"


@pytest.fixture
def redis_cache(settings: Any, tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of this test's own as the cache (sessions, rate limits, heartbeats), as
    in production; ``redis_cache.stop()`` is the outage. Stopped at the end in any case."""
    folder = tmp_path / "redis"
    folder.mkdir()
    server = PrivateRedis(folder).start()
    settings.CACHES = {"default": {"BACKEND": PRODUCTION_REDIS_BACKEND, "LOCATION": server.url()}}
    try:
        yield server
    finally:
        server.stop()
