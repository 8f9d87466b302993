"""keltis_site.cache: Django's Redis cache, which answers misses while Redis is away.

Against a real redis-server (tests/site/conftest.py) that the tests stop and start again.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import time_machine
from django.core.cache import cache

from bench.infra import PrivateRedis
from keltis_site.cache import DEFAULT_SOCKET_TIMEOUT, RETRY_AFTER, RedisCache

#: a moment to freeze the clock at (the pause after a failure is measured on it)
NOON = time.time() // 60 * 60 + 60


def raw(server: PrivateRedis) -> redis.Redis:
    """A client of the server itself, past the cache (Django stores "key" as ":1:key")."""
    return redis.Redis(port=server.port)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "keltis_site.cache" and r.levelno == logging.WARNING
    ]


def test_while_redis_is_away_reads_miss_and_writes_are_dropped_without_errors(
    redis_cache: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    cache.set("a", 1)
    assert cache.get("a") == 1
    redis_cache.stop()

    with caplog.at_level(logging.INFO):
        assert cache.get("a") is None
        assert cache.get("a", "default") == "default"
        assert cache.get_many(["a", "b"]) == {}
        assert "a" not in cache
        cache.set("a", 2)
        assert cache.add("b", 1) is True  # reported stored, like a dropped set
        assert cache.touch("a") is False
        assert cache.delete("a") is False
        with pytest.raises(ValueError):
            cache.incr("a")
        assert cache.set_many({"c": 1, "d": 2}) == ["c", "d"]  # the keys not stored
        cache.delete_many(["c", "d"])
        assert cache.get_or_set("e", 5) == 5

    [warning] = warnings_of(caplog)  # one line for the outage, not one per call
    assert warning.startswith("cache unreachable (ConnectionError: ")
    assert "sessions are read from the database" in warning


def test_after_a_failure_redis_is_left_alone_for_a_while_then_tried_again(
    redis_cache: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        redis_cache.stop()
        assert cache.get("a") is None
        assert cache.unavailable() is not None
        assert cache.unavailable().startswith("unreachable since ")  # type: ignore[union-attr]
        redis_cache.start()
        raw(redis_cache).set(":1:a", 7)

        clock.shift(RETRY_AFTER - 1)
        assert cache.get("a") is None  # not asked yet
        clock.shift(1)
        with caplog.at_level(logging.INFO):
            assert cache.get("a") == 7

    assert cache.unavailable() is None
    assert any(
        r.getMessage().startswith("cache reachable again after 10 s") for r in caplog.records
    )


def test_what_was_written_while_redis_was_away_is_deleted_when_it_is_back(
    redis_cache: PrivateRedis,
) -> None:
    """Redis back with the data it had: entries changed meanwhile are not read stale."""
    cache.set_many({"changed": "before", "deleted": "before", "kept": "before"})
    with time_machine.travel(NOON, tick=False) as clock:
        redis_cache.stop(keep_data=True)
        cache.set("changed", "during")
        cache.delete("deleted")
        redis_cache.start()
        clock.shift(RETRY_AFTER)

        assert cache.get_many(["changed", "deleted", "kept"]) == {"kept": "before"}


def test_rate_limit_counters_count_in_the_process_while_redis_is_away(
    redis_cache: PrivateRedis,
) -> None:
    redis_cache.stop()

    assert cache.add("ratelimit:action-user:x:1", 1, timeout=60) is True
    assert cache.add("ratelimit:action-user:x:1", 1, timeout=60) is False  # it is counted
    assert cache.incr("ratelimit:action-user:x:1") == 2
    assert cache.get("ratelimit:action-user:x:1") == 2
    assert cache.get("allauth:rl:account:login_failed") is None
    cache.set("allauth:rl:account:login_failed", [1.0, 2.0], 300)
    assert cache.get("allauth:rl:account:login_failed") == [1.0, 2.0]
    assert cache.get_many(["ratelimit:action-user:x:1", "other"]) == {
        "ratelimit:action-user:x:1": 2
    }


def test_redis_timeouts_default_to_one_second_and_follow_the_options() -> None:
    default = RedisCache("redis://127.0.0.1:1/0", {})
    tuned = RedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"socket_timeout": 2.5}})

    assert DEFAULT_SOCKET_TIMEOUT == 1.0
    assert default._options == {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
    assert tuned._options == {"socket_connect_timeout": 1.0, "socket_timeout": 2.5}


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a Redis that hangs)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_a_redis_that_does_not_answer_is_a_miss_not_a_hung_request(
    silent_server: int, settings: Any
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "keltis_site.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{silent_server}/0",
            "OPTIONS": {"socket_timeout": 0.2},
        }
    }

    assert cache.get("a", "default") == "default"
    assert cache.unavailable().startswith("unreachable since ")  # type: ignore[union-attr]
    assert "TimeoutError" in cache.unavailable()  # type: ignore[operator]


def test_count_adds_one_in_one_round_trip_and_expires_with_the_window(
    redis_cache: PrivateRedis,
) -> None:
    """games.ratelimit's counter: created with its time to live, then incremented; while Redis
    is away a rate-limit key counts in the process instead."""
    server = raw(redis_cache)
    assert [cache.count("ratelimit:t:k:1", 61) for _ in range(3)] == [1, 2, 3]
    assert int(server.get(":1:ratelimit:t:k:1")) == 3
    assert 0 < server.ttl(":1:ratelimit:t:k:1") <= 61
    redis_cache.stop()
    assert [cache.count("ratelimit:t:k:1", 61) for _ in range(2)] == [1, 2]


def test_one_redis_client_object_serves_every_call_of_a_thread(redis_cache: PrivateRedis) -> None:
    """Django makes a redis.Redis per call; ours keeps one per server (its pool holds the
    connections either way)."""
    client = cache._cache  # type: ignore[attr-defined]
    assert client.get_client(None, write=True) is client.get_client(None, write=False)
    cache.set("a", 1)
    assert cache.get("a") == 1
