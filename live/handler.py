"""Django's ASGI handler for the long-lived streams alone: no middleware, no thread per stream.

The pages' middleware is synchronous (sessions, the player's time zone and language, messages):
under Django's ASGI handler each request then runs it in a thread of its own, kept as long as
the request lasts, and the first middleware that reads ``request.user`` opens a database
connection in that thread. For a page that is a few milliseconds; for a stream it is a thread
and a PostgreSQL connection for as long as the page stays open (issue 31: ninety open pages
exhausted a default PostgreSQL). The streams need none of that middleware: they read who is
asking themselves, through ``live.db``'s bounded pool, and set their own headers.

So the stream server routes the streams' paths here: Django's own handler (URL resolution,
the views, error responses, the streaming of the answer) with an empty middleware chain and no
per-request thread context. Everything else (health, anything mistakenly routed to the stream
server) goes through Django's full handler as before.
"""

from __future__ import annotations

from typing import Any

from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponseBase


class StreamHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        """BaseHandler.load_middleware with MIDDLEWARE empty, plus the one check of the pages'
        middleware a stream needs: the Host header against ALLOWED_HOSTS."""
        self._view_middleware: list[Any] = []
        self._template_response_middleware: list[Any] = []
        self._exception_middleware: list[Any] = []
        get_response = self._get_response_async

        async def checked(request: HttpRequest) -> HttpResponseBase:
            request.get_host()  # DisallowedHost: answered 400, as CommonMiddleware would
            return await get_response(request)

        self._middleware_chain = convert_exception_to_response(checked)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """As ASGIHandler's, without its ThreadSensitiveContext: a stream's few synchronous
        calls (a signal's receivers, closing the response) share the process's one
        synchronous thread instead of each stream keeping a thread of its own."""
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)
