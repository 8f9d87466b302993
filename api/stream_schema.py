"""The event stream (``GET /api/v1/stream/``, api.stream) in the OpenAPI schema.

The stream is a plain async Django view served by the stream server, not a DRF view, so
drf-spectacular cannot see it. ``StreamSchemaView`` is a stub APIView that carries its
description: api.urls routes it at the same address right after the real view, which Django
always resolves first, so the stub is only ever read by the schema generator (which walks every
pattern, and skips the real view's, not being an APIView). Generated clients then know the
stream's media types, its events and their fields, and its JSON refusals.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .authentication import BearerTokenAuthentication
from .errors import not_found
from .serializers import ErrorSerializer

NDJSON = "application/x-ndjson"
SSE = "text/event-stream"


class _Event(serializers.Serializer):
    id = serializers.CharField(help_text="milliseconds since the epoch; send it as Last-Event-ID")
    game = serializers.IntegerField(help_text="the game's id: GET /api/v1/games/{id}/")


def _event(kind: str, doc: str, **fields: serializers.Field) -> type[serializers.Serializer]:
    """One event's serializer: ``type`` is ``kind``, the discriminator of ``StreamEvent``."""
    attrs: dict[str, Any] = {
        "type": serializers.ChoiceField(choices=[kind]),
        **fields,
        "__doc__": doc,
    }
    name = "".join(part.title() for part in kind.split("_")) + "Event"
    return type(name, (_Event,), attrs)


def _seq() -> serializers.IntegerField:
    return serializers.IntegerField(help_text="the game's move number (send it with an action)")


EVENTS = {
    "my_turn": _event("my_turn", "An action of mine is awaited.", seq=_seq()),
    "move": _event(
        "move",
        "A game of mine moved on.",
        seq=_seq(),
        to_move=serializers.IntegerField(allow_null=True, help_text="the seat to move"),
    ),
    "game_start": _event("game_start", "A game that seats me started."),
    "seated": _event("seated", "An open game now seats me, waiting to start."),
    "game_over": _event("game_over", "A game of mine finished.", seq=_seq()),
    "message": _event(
        "message",
        "A table talk message at a game of mine: written, or hidden by staff (then `text` is "
        "empty). Never one of a player I blocked, nor at a table whose talk I muted.",
        message=serializers.IntegerField(help_text="the message's id"),
        author=serializers.CharField(help_text="the author's display name"),
        author_username=serializers.CharField(),
        seq=serializers.IntegerField(help_text="the game's move number it was written at"),
        created_at=serializers.DateTimeField(),
        text=serializers.CharField(allow_blank=True, help_text="as typed: plain text, never HTML"),
        hidden=serializers.BooleanField(help_text="hidden by staff"),
    ),
}

STREAM_EVENT = PolymorphicProxySerializer(
    component_name="StreamEvent",
    serializers=EVENTS,
    resource_type_field_name="type",
)

_SSE_EXAMPLE = (
    "retry: 3000\n\n"
    'id: 1767225600000\nevent: my_turn\ndata: {"game":12,"seq":7}\n\n'
    ": keep-alive\n\n"
    'id: 1767225660000\nevent: move\ndata: {"game":12,"seq":9,"to_move":1}\n\n'
)
#: one line of the NDJSON answer
_NDJSON_EXAMPLE = {"id": "1767225660000", "type": "move", "game": 12, "seq": 9, "to_move": 1}
_OK = "the events, as they happen (the answer never ends): Server-Sent Events, or NDJSON"

DESCRIPTION = """The events of my games, as they happen; the answer never ends (a keep-alive
every LIVE_KEEPALIVE_SECONDS: an SSE comment, an empty NDJSON line). Served by the stream
server (see docs/api.md). No event carries a card: read the game to see it.

Events: `my_turn` {game, seq}, `move` {game, seq, to_move}, `game_start` {game}, `seated`
{game}, `game_over` {game, seq}, `message` {game, message, author, author_username, seq,
created_at, text, hidden} (table talk).

- `text/event-stream` (the default): Server-Sent Events, each with `id:`, `event:` (the type)
  and `data:` (the event's fields but `id` and `type`, as JSON).
- `application/x-ndjson` (`Accept: application/x-ndjson` or `?format=ndjson`): one
  `StreamEvent` a line.

A fresh stream first sends a `my_turn` for every game awaiting me; with `Last-Event-ID` (or
`?since=`) it first sends what happened in my games since, one event per kind and game, and the
table talk messages written there since."""


class StreamSchemaView(APIView):
    """The stream's description for the schema only (see the module): never serves a call."""

    authentication_classes = (BearerTokenAuthentication,)

    @extend_schema(
        operation_id="stream",
        summary="Event stream",
        description=DESCRIPTION,
        parameters=[
            OpenApiParameter(
                "format", str, enum=["ndjson"], description="NDJSON instead of Server-Sent Events"
            ),
            OpenApiParameter("since", int, description="an event id: what happened since"),
            OpenApiParameter(
                "Last-Event-ID",
                str,
                location=OpenApiParameter.HEADER,
                description="the last event id seen (a reconnecting EventSource sends it)",
            ),
        ],
        responses={
            (200, SSE): OpenApiResponse(
                OpenApiTypes.STR,
                description=_OK,
                examples=[OpenApiExample("events", value=_SSE_EXAMPLE, media_type=SSE)],
            ),
            (200, NDJSON): OpenApiResponse(
                STREAM_EVENT,
                description=_OK,
                examples=[OpenApiExample("a line", value=_NDJSON_EXAMPLE, media_type=NDJSON)],
            ),
            (401, "application/json"): OpenApiResponse(
                ErrorSerializer, description="invalid_token: no token, or not a valid one"
            ),
            (403, "application/json"): OpenApiResponse(
                ErrorSerializer, description="missing_scope: the token lacks `read`"
            ),
            (429, "application/json"): OpenApiResponse(
                ErrorSerializer,
                description="rate_limited: too many calls, or too many streams open "
                "(Retry-After says when to come back)",
            ),
        },
    )
    def get(self, request: Request) -> Response:
        raise not_found()  # unreachable: the real stream's route comes first
