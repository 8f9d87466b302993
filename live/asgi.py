"""The stream server's ASGI application: Django's, plus the lifespan of the hub.

uvicorn sends lifespan events (Django's handler answers only HTTP): at start-up the process
subscribes, so the embedded default's socket is bound before the first page connects; at
shutdown every stream ends, and its page reconnects.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .hub import hub

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def with_live(app: ASGIApp) -> ASGIApp:
    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await hub.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await hub.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    return application
