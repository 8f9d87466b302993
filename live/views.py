"""The event stream a live page listens to: Server-Sent Events, served by the ASGI process.

``GET /live/events/?game=G&lobby=1&since=ID``: the changes of game G (public: anyone who may
see its page may hear them), with ``lobby=1`` those of every open game and of each that stops
being open (the lobby's list, public too), and, for a logged-in player, of their open and
running games. Each event is ``change`` with the id of what the page now depends on
(``messages.state_id``) and the public part of the message. ``since`` (or the Last-Event-ID
header of a browser's own reconnect) is the id the page was rendered with, or last heard: when
it differs from the id now, a first ``change`` tells the page to catch up at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

from django.conf import settings
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotFound,
    StreamingHttpResponse,
)

from games import presence
from games.models import GameStatus

from . import db
from .hub import Subscription, hub
from .limits import limits
from .messages import GameChange, state_id
from .selectors import kept_mark, page_marks
from .visitors import StreamBody, Visitor, refused, viewer_id, visitor_address

Marks = dict[int, tuple[int, str, int]]


def _event(event_id: str, data: dict[str, object]) -> str:
    return f"event: change\nid: {event_id}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class _Presence:
    """The stream's player is present at its game (``games.presence``: notifications hold
    their turn messages meanwhile): marked at the start, renewed once a keep-alive period
    whatever the stream carries, removed at the end unless another stream of theirs on this
    process still shows the game."""

    def __init__(self, user_id: int | None, game_id: int | None) -> None:
        self.user_id, self.game_id = user_id, game_id
        self.marked_at = float("-inf")

    async def renew(self) -> None:
        if self.user_id is None or self.game_id is None:
            return
        now = asyncio.get_running_loop().time()
        if now - self.marked_at >= settings.LIVE_KEEPALIVE_SECONDS:
            self.marked_at = now
            await presence.amark(self.game_id, self.user_id)

    async def end(self) -> None:
        if self.user_id is None or self.game_id is None:
            return
        others = hub.by_game.get(self.game_id, set())
        if not any(other.user_id == self.user_id for other in others):
            await presence.aunmark(self.game_id, self.user_id)


async def _stream(
    sub: Subscription, marks: Marks, since: str, done: Callable[[], None]
) -> AsyncIterator[str]:
    watching = _Presence(sub.user_id, sub.game_id)
    try:
        await watching.renew()
        yield f"retry: {settings.LIVE_RETRY_MS}\n\n"
        current = state_id(marks.items())
        if since and since != current:
            yield _event(current, {})
        while True:
            try:
                change = await asyncio.wait_for(
                    sub.queue.get(), timeout=settings.LIVE_KEEPALIVE_SECONDS
                )
            except TimeoutError:
                await watching.renew()
                yield ": keep-alive\n\n"
                continue
            await watching.renew()
            if change is None:
                return
            _update(marks, change, sub)
            yield _event(state_id(marks.items()), change.public())
    finally:
        done()  # unsubscribed, the visitor's limits given back
        await watching.end()


def _update(marks: Marks, change: GameChange, sub: Subscription) -> None:
    """The marks as ``page_marks`` would read them now (no query per change and stream)."""
    if kept_mark(change, user_id=sub.user_id, game_id=sub.game_id, lobby=sub.lobby):
        marks[change.game] = change.mark
    else:
        marks.pop(change.game, None)


def _cors(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """The pages' origin may open the stream with its cookies (the stream server may listen on
    another port or host than the pages)."""
    origin = request.headers.get("Origin")
    if origin and origin in settings.LIVE_ALLOWED_ORIGINS:
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Allow-Credentials"] = "true"
    response["Vary"] = "Origin, Cookie"
    return response


async def events(request: HttpRequest) -> HttpResponse:
    raw_game = request.GET.get("game", "")
    try:
        game_id = int(raw_game) if raw_game else None
    except ValueError:
        return _cors(request, HttpResponseBadRequest("game: a number"))
    lobby = request.GET.get("lobby") == "1"
    address = visitor_address(request)
    refusal = limits.admit(address)  # before anything is read: a loop costs no query
    if refusal is not None:
        return _cors(request, refused(request, refusal))
    who = Visitor(address=address)
    body = StreamBody(who.release)
    try:
        user_id = await db.read(viewer_id, request)
        if user_id is None and game_id is None and not lobby:
            body.close()
            return _cors(request, HttpResponse(status=204))  # nothing to hear: EventSource stops
        if user_id is not None and (refusal := who.admit_user(user_id)) is not None:
            body.close()
            return _cors(request, refused(request, refusal))
        await hub.start()
        # subscribed before the marks are read: a change committed in between is heard
        who.sub = hub.subscribe(user_id=who.user_id, game_id=game_id, lobby=lobby)
        marks = await db.read(page_marks, user_id=who.user_id, game_id=game_id, lobby=lobby)
    except BaseException:
        body.close()
        raise
    if game_id is not None and game_id not in marks:
        body.close()
        return _cors(request, HttpResponseNotFound("no such game"))
    if lobby:
        hub.lobby_seen({pk for pk, mark in marks.items() if mark[1] == GameStatus.OPEN})
    since = request.headers.get("Last-Event-ID") or request.GET.get("since", "")
    body.events = _stream(who.sub, marks, since, body.done)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
    return _cors(request, response)

