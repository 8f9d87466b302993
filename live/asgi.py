"""The stream server's ASGI application: Django's, plus the streams' own handler and the
lifespan of the hub.

The streams' paths (the live pages' and the API's) go to ``live.handler.StreamHandler``:
Django without the pages' middleware, so an open stream holds neither a thread nor a database
connection. Anything else goes to Django's full handler.

uvicorn sends lifespan events (Django's handler answers only HTTP): at start-up the process
subscribes, so the embedded default's socket is bound before the first page connects; at
shutdown every stream ends, and its page reconnects, and the database pool's connections close.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from django.urls import reverse

from . import db
from .handler import StreamHandler
from .hub import hub
from .limits import limits

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]

#: the URL names of the long-lived streams served by StreamHandler
STREAM_URLS = ("live_events", "api_stream")


@cache
def stream_paths() -> frozenset[str]:
    return frozenset(reverse(name) for name in STREAM_URLS)


def with_live(app: ASGIApp) -> ASGIApp:
    streams = StreamHandler()

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            target = streams if scope["path"] in stream_paths() else app
            await target(scope, receive, send)
            return
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                limits.reset()
                await hub.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await hub.stop()
                db.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    return application
