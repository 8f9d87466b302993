"""Reading a table's talk as one reader may see it: hidden messages stay in place as "hidden
by staff", and nothing a player the reader blocked wrote is shown to them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connections
from django.db.models import Model, QuerySet
from django.utils import timezone

from accounts.models import Block
from games.models import Game, Seat
from keltis_site.prepared import Prepared

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


#: how many of the newest messages the game page reads (its panel shows one less, and says
#: when there are more)
NEWEST_READ = 101


@dataclass(frozen=True)
class Reader:
    """What the talk panel needs to know of its reader at one table."""

    seated: bool = False
    muted: bool = False
    suspended: bool = False


def reader_at(game: Game, viewer: Any) -> Reader:
    """Whether ``viewer`` has a seat at ``game``, muted its talk, or is suspended from talk now
    (``Suspension.active`` as SQL): one query of plain SQL, written once per database, as the
    game page asks it on every load (the ORM spent more CPU building it than the database
    answering it)."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return Reader()
    connection = connections["default"]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(_reader_sql(connection.vendor), [game.pk, viewer.pk] * 2 + [viewer.pk, now])
        seated, muted, suspended = cursor.fetchone()
    return Reader(seated=bool(seated), muted=bool(muted), suspended=bool(suspended))


@cache
def _reader_sql(vendor: str) -> str:
    quote = connections["default"].ops.quote_name

    def table(model: type[Model]) -> str:
        return quote(model._meta.db_table)

    return (
        f"SELECT EXISTS(SELECT 1 FROM {table(Seat)} WHERE game_id = %s AND user_id = %s), "
        f"EXISTS(SELECT 1 FROM {table(Mute)} WHERE game_id = %s AND user_id = %s), "
        f"EXISTS(SELECT 1 FROM {table(Suspension)} WHERE user_id = %s"
        " AND (until IS NULL OR until > %s))"
    )


#: the game page's panel: the newest messages of a game, compiled once (keltis_site.prepared)
_NEWEST = Prepared(
    lambda game_id: Message.objects.filter(game_id=game_id)
    .select_related("author")
    .order_by("-created_at", "-pk")[:NEWEST_READ]
)


def newest_for(game: Game, viewer: Any) -> list[ShownMessage]:
    """The game page's panel: the newest NEWEST_READ messages oldest first, without those of
    players ``viewer`` blocked (read only when there is a message to leave out)."""
    if not rules.may_read(game, viewer):
        return []
    rows = _NEWEST.run(game.pk)
    if rows and getattr(viewer, "is_authenticated", False):
        blocked = set(
            Block.objects.filter(blocker_id=viewer.pk).values_list("blocked_id", flat=True)
        )
        rows = [message for message in rows if message.author_id not in blocked]
    return [shown(message) for message in reversed(rows)]


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
