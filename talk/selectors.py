"""Reading a table's talk as one reader may see it: hidden messages stay in place as "hidden
by staff", and nothing a player the reader blocked wrote is shown to them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Exists, QuerySet, Subquery

from accounts.models import Block
from games.models import Game, Seat

from . import rules
from .models import Message, Mute, Suspension


@dataclass(frozen=True)
class ShownMessage:
    """A message as a reader sees it (``text`` empty when hidden by staff)."""

    id: int
    author_id: int
    author: str
    author_username: str
    seq: int
    created_at: datetime
    text: str
    hidden: bool
    #: whether its links may be links (the author's account is old enough)
    links: bool


@dataclass(frozen=True)
class Reader:
    """What the talk panel needs to know of its reader at one table."""

    seated: bool = False
    muted: bool = False
    suspended: bool = False


def reader_at(game: Game, viewer: Any) -> Reader:
    """Whether ``viewer`` has a seat at ``game``, muted its talk, or is suspended from talk:
    one query, as the game page asks it on every load."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return Reader()
    row = (
        Seat.objects.filter(game_id=game.pk, user_id=viewer.pk)
        .annotate(
            muted=Exists(Mute.objects.filter(game_id=game.pk, user_id=viewer.pk)),
            suspended=Exists(Suspension.objects.filter(user_id=viewer.pk)),
            suspended_until=Subquery(
                Suspension.objects.filter(user_id=viewer.pk).values("until")[:1]
            ),
        )
        .values("muted", "suspended", "suspended_until")
        .first()
    )
    if row is None:
        return Reader()
    return Reader(
        seated=True,
        muted=row["muted"],
        suspended=row["suspended"] and Suspension(until=row["suspended_until"]).active(),
    )


def _without_blocked(rows: QuerySet[Message], viewer: Any) -> QuerySet[Message]:
    """``rows`` without what a player ``viewer`` blocked wrote (a subquery: no query of its
    own)."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return rows
    blocked = Block.objects.filter(blocker_id=viewer.pk).values("blocked_id")
    return rows.exclude(author_id__in=blocked)


def messages_for(
    game: Game, viewer: Any, *, after_seq: int | None = None, limit: int | None = None
) -> list[ShownMessage]:
    """``game``'s talk for ``viewer``, oldest first (``after_seq``: only what was written after
    that move number; ``limit``: the newest so many). Empty for a reader who may not read it."""
    if not rules.may_read(game, viewer):
        return []
    rows = _without_blocked(Message.objects.filter(game=game).select_related("author"), viewer)
    if after_seq is not None:
        rows = rows.filter(seq__gt=after_seq)
    rows = rows.order_by("-created_at", "-pk")
    if limit is not None:
        rows = rows[:limit]
    return [shown(message) for message in reversed(list(rows))]


def shown(message: Message) -> ShownMessage:
    return ShownMessage(
        id=message.pk,
        author_id=message.author_id,
        author=message.author.public_name,
        author_username=message.author.username,
        seq=message.seq,
        created_at=message.created_at,
        text="" if message.hidden else message.text,
        hidden=message.hidden,
        links=rules.links_allowed(message.author),
    )


def messages_since_turn(game: Game, reader: Any, since_seq: int) -> list[ShownMessage]:
    """What the others wrote since ``since_seq`` (the reader's last turn), for their turn email;
    nothing when the reader muted the table."""
    from .services import is_muted

    if is_muted(game.pk, reader):
        return []
    return [
        m
        for m in messages_for(game, reader, after_seq=since_seq)
        if m.author_id != reader.pk and not m.hidden
    ]


def message_for(message_id: int, viewer: Any) -> ShownMessage | None:
    """One message as ``viewer`` may see it: None when they may not read its game, or blocked
    its author (the API's stream sends each new message to every reader this way)."""
    message = Message.objects.select_related("game", "author").filter(pk=message_id).first()
    if message is None or not rules.may_read(message.game, viewer):
        return None
    if (
        message.author_id != getattr(viewer, "pk", None)
        and getattr(viewer, "is_authenticated", False)
        and Block.objects.filter(blocker_id=viewer.pk, blocked_id=message.author_id).exists()
    ):
        return None
    return shown(message)


def messages_after(game: Game, viewer: Any, *, after_id: int, limit: int) -> list[ShownMessage]:
    """The messages of ``game`` with an id above ``after_id``, oldest first, at most
    ``limit`` (the API's polling: ``?after=<the last id seen>``)."""
    if not rules.may_read(game, viewer):
        return []
    rows = _without_blocked(
        Message.objects.filter(game=game, pk__gt=after_id).select_related("author"), viewer
    )
    return [shown(message) for message in rows.order_by("pk")[:limit]]
