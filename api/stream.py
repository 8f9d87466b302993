"""``GET /api/v1/stream/``: the events of my games, for programs, over the live pages' stack.

Served by the stream server (uvicorn, ``live/``), which already holds one subscription per
process to the changes every commit publishes (``live.hub``); this stream listens on the
player's own channel there. A change says only where a game stands (move number, status,
whose turn), never a card, and each becomes the events it means for this player:

- ``my_turn`` {game, seq}: an action of mine is awaited (send ``seq`` with it);
- ``move`` {game, seq, to_move}: a game of mine moved on;
- ``game_start`` {game}: a game that seats me started (a league or tournament table included);
- ``seated`` {game}: an open game now seats me (I joined it, or was seated), waiting to start;
- ``game_over`` {game, seq}: a game of mine finished;
- ``message`` {game, message, author, author_username, seq, created_at, text, hidden}: a
  table talk message at a game of mine, written or hidden by staff (then ``text`` is empty);
  never one of a player I blocked, nor at a table whose talk I muted.

Server-Sent Events (``text/event-stream``, the default) or NDJSON (``Accept:
application/x-ndjson`` or ``?format=ndjson``). A keep-alive every LIVE_KEEPALIVE_SECONDS (an SSE
comment, an empty NDJSON line). Event ids are milliseconds since the epoch: reconnecting with
``Last-Event-ID`` (or ``?since=``) first sends what happened in my games since, one event per
kind and game with its present state; without it the stream starts with a ``my_turn`` for each
game awaiting me.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import F, Max, Q
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.middleware import user_language
from games import ratelimit
from games.models import Game, GameStatus, Seat
from live import db
from live.hub import Subscription, hub
from live.limits import limits
from live.messages import GameChange
from live.visitors import StreamBody, Visitor, refused_text, visitor_address
from talk import selectors as talk_selectors
from talk.models import Message
from talk.services import is_muted

from .authentication import bearer_secret
from .models import ApiToken, Scope
from .tokens import token_find

NDJSON = "application/x-ndjson"
Known = dict[int, tuple[int, str]]
Event = tuple[str, dict[str, Any]]


def _refusal(code: str, message: str, status: int, retry_after: int = 0) -> HttpResponse:
    response = JsonResponse({"code": code, "message": message}, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def _authenticate(request: HttpRequest) -> ApiToken | None:
    secret = bearer_secret(request.headers.get("Authorization", ""))
    return token_find(secret) if secret else None


# -- what a change means for one player ---------------------------------------------------------
def _seat_and_creator(game_id: int, user_id: int) -> tuple[int | None, int | None]:
    seat = Seat.objects.filter(game_id=game_id, user_id=user_id).values_list("index", flat=True)
    creator = Game.objects.filter(pk=game_id).values_list("created_by_id", flat=True).first()
    return seat.first(), creator


#: the most table talk messages a reconnecting stream first sends
TALK_CATCH_UP = 100


def message_event(message_id: int, user: Any) -> list[Event]:
    """The ``message`` event of one table talk message for ``user``: none when they may not
    read its game, blocked its author or muted the table (a hidden one has empty text)."""
    shown = talk_selectors.message_for(message_id, user)
    if shown is None:
        return []
    message = Message.objects.filter(pk=message_id).values_list("game_id", flat=True).first()
    if message is None or is_muted(message, user):
        return []
    return [(
        "message",
        {
            "game": message, "message": shown.id, "author": shown.author,
            "author_username": shown.author_username, "seq": shown.seq,
            "created_at": shown.created_at.isoformat(), "text": shown.text,
            "hidden": shown.hidden,
        },
    )]  # fmt: skip


def describe(change: GameChange, user_id: int, known: Known) -> list[Event]:
    """The events ``change`` means for ``user_id``, given what the stream last told them
    (``known``: game -> (seq, status), updated here). One query at most for a game's
    change; a few for a table talk message."""
    if change.message is not None:
        user = get_user_model().objects.filter(pk=user_id).first()
        return [] if user is None else message_event(change.message, user)
    before = known.get(change.game)
    if before == (change.seq, change.status):
        return []
    seat, creator = _seat_and_creator(change.game, user_id)
    if seat is None:
        known.pop(change.game, None)
        return []
    known[change.game] = (change.seq, change.status)
    game = change.game
    events: list[Event] = []
    if change.status == GameStatus.OPEN:
        if before is None and creator != user_id:
            events.append(("seated", {"game": game}))
        return events
    if change.status == GameStatus.RUNNING and (before is None or before[1] == GameStatus.OPEN):
        events.append(("game_start", {"game": game}))
    if before is not None and change.seq > before[0] and change.status != GameStatus.CANCELLED:
        events.append(("move", {"game": game, "seq": change.seq, "to_move": change.to_move}))
    if change.status == GameStatus.FINISHED and (before is None or before[1] != change.status):
        events.append(("game_over", {"game": game, "seq": change.seq}))
    if change.status == GameStatus.RUNNING and change.to_move == seat:
        events.append(("my_turn", {"game": game, "seq": change.seq}))
    return events


def opening(user_id: int, since_ms: int | None) -> tuple[Known, list[Event]]:
    """What the stream knows at its start, and what it first sends: my turns (no ``since``),
    or what changed in my games since ``since_ms`` (a reconnect), then the table talk
    messages written there since (the first TALK_CATCH_UP)."""
    mine = Game.objects.filter(seats__user_id=user_id)
    known: Known = {
        pk: (seq, status)
        for pk, seq, status in mine.filter(
            status__in=[GameStatus.OPEN, GameStatus.RUNNING]
        ).values_list("pk", "seq", "status")
    }
    events: list[Event] = []
    if since_ms is None:
        games = Game.objects.filter(
            seats__user_id=user_id,
            seats__index=F("to_move"),
            status=GameStatus.RUNNING,
            frozen_at__isnull=True,
        ).order_by("pk")
        for pk, seq in games.values_list("pk", "seq"):
            events.append(("my_turn", {"game": pk, "seq": seq}))
        return known, events
    since = datetime.fromtimestamp(since_ms / 1000, tz=UTC)
    changed = (
        mine.annotate(last_move=Max("events__created_at"))
        .filter(
            Q(last_move__gt=since)
            | Q(started_at__gt=since)
            | Q(finished_at__gt=since)
            | Q(created_at__gt=since)
        )
        .order_by("pk")
    )
    for game in changed:
        seat = game.seats.filter(user_id=user_id).values_list("index", flat=True).first()
        if game.created_at > since and game.status == GameStatus.OPEN:
            if game.created_by_id != user_id:
                events.append(("seated", {"game": game.pk}))
            continue
        if game.started_at and game.started_at > since:
            events.append(("game_start", {"game": game.pk}))
        if game.last_move and game.last_move > since:
            events.append(("move", {"game": game.pk, "seq": game.seq, "to_move": game.to_move}))
        if game.status == GameStatus.FINISHED and game.finished_at and game.finished_at > since:
            events.append(("game_over", {"game": game.pk, "seq": game.seq}))
        elif game.status == GameStatus.RUNNING and game.to_move == seat and not game.frozen:
            events.append(("my_turn", {"game": game.pk, "seq": game.seq}))
    user = get_user_model().objects.filter(pk=user_id).first()
    talk = (
        Message.objects.filter(game__seats__user_id=user_id, created_at__gt=since)
        .order_by("pk")
        .values_list("pk", flat=True)[:TALK_CATCH_UP]
    )
    for message_id in talk if user is not None else []:
        events += message_event(message_id, user)
    return known, events


# -- the stream -----------------------------------------------------------------------------------
class Ids:
    """Event ids: milliseconds since the epoch, strictly increasing within a stream."""

    def __init__(self) -> None:
        self.last = 0

    def next(self) -> str:
        self.last = max(self.last + 1, int(time.time() * 1000))
        return str(self.last)


def _frame(fmt: str, event_id: str, kind: str, data: dict[str, Any]) -> str:
    if fmt == "ndjson":
        return json.dumps({"id": event_id, "type": kind, **data}, separators=(",", ":")) + "\n"
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {event_id}\nevent: {kind}\ndata: {body}\n\n"


async def _stream(
    sub: Subscription,
    user_id: int,
    fmt: str,
    known: Known,
    first: list[Event],
    done: Callable[[], None],
) -> AsyncIterator[str]:
    ids = Ids()
    try:
        if fmt == "sse":
            yield f"retry: {settings.LIVE_RETRY_MS}\n\n"
        for kind, data in first:
            yield _frame(fmt, ids.next(), kind, data)
        if fmt == "sse" and not first:
            yield ": ready\n\n"
        while True:
            try:
                change = await asyncio.wait_for(
                    sub.queue.get(), timeout=settings.LIVE_KEEPALIVE_SECONDS
                )
            except TimeoutError:
                yield ": keep-alive\n\n" if fmt == "sse" else "\n"
                continue
            if change is None:
                return
            for kind, data in await db.read(describe, change, user_id, known):
                yield _frame(fmt, ids.next(), kind, data)
    finally:
        done()  # unsubscribed, the visitor's limits given back


async def events(request: HttpRequest) -> HttpResponse:
    if request.method != "GET":
        return _refusal(
            "method_not_allowed", _("The request is not valid: nothing was changed."), 405
        )
    token = await db.read(_authenticate, request)
    if token is None:
        return _refusal("invalid_token", _("This API token is not valid or was revoked."), 401)
    language = user_language(token.user)
    if language:
        translation.activate(language)
    if not token.allows(Scope.READ):
        return _refusal("missing_scope", _("This API token lacks the scope this call needs."), 403)
    counted = await db.read(
        ratelimit.hit, "api-read", f"token:{token.pk}", settings.API_READ_RATE_LIMIT
    )
    if not counted:  # a client reconnecting in a loop
        return _refusal(
            "rate_limited",
            _("Too many calls in a short time: nothing was changed. Please try again later."),
            429,
        )
    wanted = request.GET.get("format", "")
    fmt = "ndjson" if wanted == "ndjson" or NDJSON in request.headers.get("Accept", "") else "sse"
    raw_since = request.headers.get("Last-Event-ID") or request.GET.get("since", "")
    try:
        since_ms = int(raw_since) if raw_since else None
    except ValueError:
        since_ms = None
    who = Visitor(address=visitor_address(request))
    refusal = limits.admit(who.address)
    if refusal is not None:
        return _refusal("rate_limited", refused_text(refusal), 429, refusal.retry_after)
    body = StreamBody(who.release)
    try:
        refusal = who.admit_user(token.user_id)
        if refusal is not None:
            body.close()
            return _refusal("rate_limited", refused_text(refusal), 429, refusal.retry_after)
        await hub.start()
        # subscribed before the opening is read: a change committed in between is heard
        who.sub = hub.subscribe(user_id=who.user_id, game_id=None)
        known, first = await db.read(opening, who.user_id, since_ms)
    except BaseException:
        body.close()
        raise
    body.events = _stream(who.sub, who.user_id, fmt, known, first, body.done)
    response = StreamingHttpResponse(
        body, content_type=NDJSON if fmt == "ndjson" else "text/event-stream"
    )
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"
    return response

