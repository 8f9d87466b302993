"""The stream server's database: a few threads, each with its one connection, for every stream.

A stream reads the database when it opens (who is asking, may they see the game, the page's
marks) and, for the API's stream, when a change concerns its player; between those it waits on
the transport alone. Django's own way (``sync_to_async``) would run each read in a thread of
the stream's request, whose connection then stays open as long as the stream does: one
PostgreSQL connection per open page, and a default server (100 connections) refused everyone
from about ninety pages on (issue 31). Here every read of every stream runs in one pool of
``LIVE_DB_THREADS`` threads, so the process never holds more connections than that, however
many streams are open; a burst of openings waits its turn in the pool's queue.

Each pool thread keeps its connection between reads, handled as Django handles a request's:
``close_old_connections`` before each read drops one that has failed or outlived
``CONN_MAX_AGE``, and ``CONN_HEALTH_CHECKS`` tests it before its first query.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import close_old_connections, connections

P = ParamSpec("P")
R = TypeVar("R")

_pool: ThreadPoolExecutor | None = None


def pool() -> ThreadPoolExecutor:
    """The process's pool, made at the first read (settings are read then, not at import)."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(
            max_workers=settings.LIVE_DB_THREADS, thread_name_prefix="live-db"
        )
    return _pool


def _in_pool(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    close_old_connections()
    try:
        return func(*args, **kwargs)
    finally:
        close_old_connections()  # one that broke during the read is not kept for the next


async def read(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``func(*args, **kwargs)`` in the pool: the only way a stream touches the database."""
    loop = asyncio.get_running_loop()
    call = functools.partial(_in_pool, func, *args, **kwargs)
    return await loop.run_in_executor(pool(), call)


def shutdown() -> None:
    """Close every pool thread's connection, then the pool (the server is stopping; a test
    database cannot be dropped while a connection to it is open)."""
    global _pool
    if _pool is None:
        return
    threads = settings.LIVE_DB_THREADS
    # one closing task per thread: each waits at the barrier until all are running, so no
    # thread takes two and every thread's connection is closed in its own thread
    barrier = threading.Barrier(threads)
    closing = [_pool.submit(_close, barrier) for _ in range(threads)]
    for future in closing:
        future.result()
    _pool.shutdown(wait=True)
    _pool = None


def _close(barrier: threading.Barrier) -> None:
    barrier.wait(timeout=10)
    connections.close_all()
