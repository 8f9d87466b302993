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


@cache
def _redis(url: str) -> redis.Redis:
    """The process's one client for publishing: made once per URL, its connection pool reuses
    one connection per thread that publishes at the same time (one, in a sync worker), never
    a connection per move. Short timeouts: a Redis that is down delays the follow-up work of
    a move by a second."""
    return redis.Redis.from_url(
        url, socket_timeout=1, socket_connect_timeout=1, client_name=PUBLISHER_NAME
    )


def publish(data: bytes) -> None:
    """Send one message to the stream servers (raises OSError or RedisError when it cannot)."""
    url = settings.LIVE_PUBSUB_URL
    path = _unix_path(url)
    if path is None:
        _redis(url).publish(settings.LIVE_CHANNEL, data)
        return
    try:
        _datagram_socket().sendto(data, path)
    except (FileNotFoundError, ConnectionRefusedError):
        log.debug("no live stream server listens at %s", path)


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
