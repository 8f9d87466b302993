"""The live publisher's Redis client: one per process (made at its first publish, never the
one a forked worker inherited), reused by every publish; a Redis that is down costs a move one
failed attempt, not one per move, and the moves are stored all the same."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from games.models import Game
from games.services import game_create
from live import transport

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("LIVE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")


def dead_url() -> str:
    """A Redis URL nobody listens at: a port the system just handed out, closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


@pytest.fixture(autouse=True)
def fresh_clients(settings: Any) -> Iterator[None]:
    settings.LIVE_CHANNEL = f"keltis:live:test:{uuid.uuid4().hex}"
    transport._clients.clear()
    transport._down_until.clear()
    yield
    for client in transport._clients.values():
        client.close()
    transport._clients.clear()
    transport._down_until.clear()


def redis_up() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def test_every_publish_of_a_process_uses_its_one_client(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIVE_PUBSUB_URL = REDIS_URL
    made: list[str] = []
    make = redis.Redis.from_url

    def counting(url: str, **options: Any) -> redis.Redis:
        made.append(url)
        return make(url, **options)

    monkeypatch.setattr(redis.Redis, "from_url", counting)
    assert transport._redis(REDIS_URL) is transport._redis(REDIS_URL)
    assert made == [REDIS_URL]


def test_a_forked_process_makes_its_own_client_and_leaves_the_parents_alone(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = transport._redis(REDIS_URL)
    closed: list[Any] = []
    monkeypatch.setattr(parent, "close", lambda: closed.append(parent))
    monkeypatch.setattr(transport.os, "getpid", lambda: -7)

    child = transport._redis(REDIS_URL)

    assert child is not parent
    assert list(transport._clients) == [(-7, REDIS_URL)]
    assert closed == []  # the parent's connection is the parent's to close


def test_redis_down_fails_once_then_at_once_until_the_back_off_ends(settings: Any) -> None:
    url = dead_url()
    settings.LIVE_PUBSUB_URL = url
    with pytest.raises(redis.ConnectionError):
        transport.publish(b"{}")

    tried: list[bytes] = []
    client = transport._redis(url)
    client.publish = lambda channel, data: tried.append(data)  # type: ignore[method-assign]
    started = time.monotonic()
    for _ in range(20):
        with pytest.raises(redis.ConnectionError, match="moments ago"):
            transport.publish(b"{}")
    assert tried == []  # not one attempt while it is known to be down
    assert time.monotonic() - started < 1

    transport._down_until[url] = time.monotonic() - 1  # the back-off is over
    transport.publish(b"{}")
    assert tried == [b"{}"]
    assert url not in transport._down_until


def test_a_move_is_stored_and_logged_when_redis_is_down(
    settings: Any, make_user: Any, django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    settings.LIVE_PUBSUB_URL = dead_url()
    anna = make_user()
    with caplog.at_level(logging.WARNING, logger="live.publish"):
        for _ in range(3):
            with django_capture_on_commit_callbacks(execute=True):
                game = game_create(creator=anna, kind="keltis", player_count=2)
            assert Game.objects.filter(pk=game.pk).exists()
    warnings = [r for r in caplog.records if r.getMessage() == "live update not published"]
    assert len(warnings) == 3


@pytest.mark.skipif(not redis_up(), reason="needs Redis (LIVE_TEST_REDIS_URL)")
def test_publishing_resumes_on_the_same_client_once_redis_is_back(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIVE_PUBSUB_URL = REDIS_URL
    listener = redis.Redis.from_url(REDIS_URL).pubsub()
    listener.subscribe(settings.LIVE_CHANNEL)
    assert listener.get_message(timeout=2)["type"] == "subscribe"
    client = transport._redis(REDIS_URL)
    client.connection_pool.disconnect()  # as if Redis had restarted meanwhile
    transport.publish(b"back")
    message = listener.get_message(timeout=2)
    listener.close()
    assert message is not None and message["data"] == b"back"
    assert transport._redis(REDIS_URL) is client
