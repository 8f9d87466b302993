"""How a change travels from the process that committed it to the stream servers.

``LIVE_PUBSUB_URL`` chooses:

- ``redis://host:port/n``: Redis pub/sub on the channel ``LIVE_CHANNEL`` (production, compose,
  CI). Any number of publishers and stream servers, on any hosts. Pub/sub keeps nothing: a
  stream server that is down misses what was published meanwhile, and its pages catch up when
  they reconnect.
- ``unix:///path/live.sock`` (the embedded default, under VAR_DIR): the one stream server binds
  a Unix datagram socket and every publisher on the machine sends its datagram there. No Redis,
  no polling, nothing kept: with no stream server running the datagram is dropped at once
  (nobody is listening, so no page is waiting). One host and one stream process only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from functools import cache
from urllib.parse import urlsplit

import redis
import redis.asyncio as aioredis
from django.conf import settings

log = logging.getLogger(__name__)

Deliver = Callable[[bytes], None]


def _unix_path(url: str) -> str | None:
    parts = urlsplit(url)
    return parts.path if parts.scheme == "unix" else None


#: the name the publishers' connections carry in Redis's CLIENT LIST (what an operator sees)
PUBLISHER_NAME = "keltis-live-publisher"
#: after Redis failed to take a message, publishes fail at once for this long instead of each
#: trying again (a Redis that is down must not cost every move a connection attempt)
DOWN_BACKOFF_SECONDS = 2.0

#: the process's clients by (process id, URL): made at a process's first publish, never
#: inherited across a fork (gunicorn and Celery fork their workers after the imports)
_clients: dict[tuple[int, str], redis.Redis] = {}
_clients_lock = threading.Lock()
#: per URL, until when (time.monotonic) publishing is not tried again after a failure
_down_until: dict[str, float] = {}


def _redis(url: str) -> redis.Redis:
    """The process's one client for publishing: made once per process and URL, its connection
    pool reuses one connection per thread that publishes at the same time (one, in a sync
    worker), never a connection per move. Short timeouts: a Redis that is down delays the
    follow-up work of a move by a second at most, and only once per ``DOWN_BACKOFF_SECONDS``."""
    key = (os.getpid(), url)
    client = _clients.get(key)
    if client is not None:
        return client
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            for inherited in [k for k in _clients if k[0] != key[0]]:
                del _clients[inherited]  # the parent's: its socket is the parent's to close
            client = _clients[key] = redis.Redis.from_url(
                url, socket_timeout=1, socket_connect_timeout=1, client_name=PUBLISHER_NAME
            )
    return client


def publish(data: bytes) -> None:
    """Send one message to the stream servers (raises OSError or RedisError when it cannot)."""
    url = settings.LIVE_PUBSUB_URL
    path = _unix_path(url)
    if path is None:
        _publish_redis(url, data)
        return
    try:
        _datagram_socket().sendto(data, path)
    except (FileNotFoundError, ConnectionRefusedError):
        log.debug("no live stream server listens at %s", path)


def _publish_redis(url: str, data: bytes) -> None:
    """Publish on Redis; after a failure to reach it, fail at once for DOWN_BACKOFF_SECONDS
    (pub/sub keeps nothing anyway: the pages catch up when their stream reconnects)."""
    if _down_until.get(url, 0.0) > time.monotonic():
        raise redis.ConnectionError("Redis was unreachable moments ago: not tried again yet")
    try:
        _redis(url).publish(settings.LIVE_CHANNEL, data)
    except (OSError, redis.ConnectionError, redis.TimeoutError):
        _down_until[url] = time.monotonic() + DOWN_BACKOFF_SECONDS
        raise
    if url in _down_until:
        _down_until.pop(url, None)


@cache
def _datagram_socket() -> socket.socket:
    """The process's one unbound datagram socket for publishing: it can send to any path, from
    any thread, so it is made once, not for every action."""
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)


class Listener:
    """The stream server's one subscription: ``deliver`` gets every message published."""

    def __init__(self, deliver: Deliver) -> None:
        self.deliver = deliver
        self._task: asyncio.Task[None] | None = None
        self._transport: asyncio.DatagramTransport | None = None

    async def start(self) -> None:
        url = settings.LIVE_PUBSUB_URL
        path = _unix_path(url)
        if path is not None:
            await self._bind(path)
        else:
            self._task = asyncio.get_running_loop().create_task(self._subscribe(url))

    async def stop(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _bind(self, path: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by a stream server that stopped
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        os.chmod(path, 0o600)  # only this user's processes publish
        deliver = self.deliver

        class Protocol(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: object) -> None:
                deliver(data)

        transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
            Protocol, sock=sock
        )
        self._transport = transport

    async def _subscribe(self, url: str) -> None:
        """Subscribe, and subscribe again after Redis went away (backing off up to 5 s)."""
        delay = 0.2
        while True:
            client = aioredis.Redis.from_url(url, socket_connect_timeout=2)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(settings.LIVE_CHANNEL)
                    delay = 0.2
                    async for message in pubsub.listen():
                        if message["type"] == "message":
                            self.deliver(message["data"])
            except (OSError, redis.RedisError) as exc:
                log.warning("live subscription lost, retrying", extra={"error": str(exc)})
            finally:
                await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
