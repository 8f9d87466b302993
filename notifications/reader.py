"""What every message of the channels' room needs to know about its reader: their time zone,
the games waiting for their move, their choice for table talk on a channel.

The bottom of ``notifications``: it imports no module of the app but ``models``, so the email
writer, the channels' wording, the digest and the settings all read these facts from one place
without importing one another (the import circle they once made: tests/notifications/
test_layering.py).
"""

from __future__ import annotations

import zoneinfo

from django.db.models import F, QuerySet

from accounts.models import User
from games.models import Game, GameStatus, Seat

from .models import Channel, MessageMode


def zone_of(user: User) -> zoneinfo.ZoneInfo:
    """The player's time zone (UTC for one the system does not know)."""
    try:
        return zoneinfo.ZoneInfo(user.time_zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def waiting_seats() -> QuerySet[Seat]:
    """Seats of persons whose turn it is in a running game (a frozen one waits for nobody)."""
    return Seat.objects.filter(
        retired=False,
        user__isnull=False,
        game__status=GameStatus.RUNNING,
        game__to_move=F("index"),
        game__frozen_at__isnull=True,
    )


def waiting_games(*, user: User) -> list[Game]:
    """The running games where it is ``user``'s turn, the least time left first (games
    without a deadline last)."""
    games = Game.objects.filter(
        pk__in=waiting_seats().filter(user=user).values("game_id")
    ).order_by(F("deadline").asc(nulls_last=True), "pk")
    return list(games)


#: a channel's table-talk choice when the player made none: every message where a message
#: is news in itself (an email, a phone's notification), with the next turn on a chat
#: webhook, which a whole group may read
MESSAGE_MODE_DEFAULTS = {
    Channel.EMAIL.value: MessageMode.EVERY_MESSAGE.value,
    Channel.PUSH.value: MessageMode.EVERY_MESSAGE.value,
    Channel.WEBHOOK.value: MessageMode.WITH_TURN.value,
}


def message_mode(user: User, channel: str) -> str:
    """The player's choice for table talk on ``channel`` (``User.message_modes``), or the
    channel's default; a stored value this site does not know counts as the default."""
    default = MESSAGE_MODE_DEFAULTS.get(channel, MessageMode.WITH_TURN.value)
    mode = (user.message_modes or {}).get(channel, default)
    return mode if mode in MessageMode.values else default
