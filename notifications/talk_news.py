"""Who hears of a table's talk, and on which channels: the rules the rows are queued by (in
the posting transaction: ``table_talk``) and read again when they are sent (``emails``,
``channels.messages``), so a mute, a block or a hidden message written in between still counts.

A message is news for the other persons seated at its table (a bot account never), who are
active, have not muted the table (``talk.services.is_muted``) and have not blocked its author
(``accounts.blocks.has_blocked``); on a channel whose choice for messages is "every message"
(``reader.message_mode``) and that is on for them (an email address and turn emails not off;
any other channel not off). "With the next turn email" sends nothing now: the turn email shows
the messages since the reader's last turn (``emails.turn_context``).

Low in the app: it imports only ``models`` and ``reader`` of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from accounts.blocks import has_blocked
from accounts.models import EmailMode, User
from games.models import Seat
from talk.models import Message
from talk.services import is_muted

from .models import Channel, ChannelMode, MessageMode
from .reader import message_mode

#: how many of a table's latest messages a message email shows
RECENT_MESSAGES = 5
#: a push or chat text quotes at most this much of a message
SHORT_TEXT = 200


def channel_on(user: User, channel: str) -> bool:
    """Whether the player hears anything on ``channel``: email needs an address and turn emails
    not off ("nothing at all"); the other channels a choice that is not off."""
    if channel == Channel.EMAIL:
        return bool(user.email) and user.email_mode != EmailMode.NONE
    return (user.channel_modes or {}).get(channel, ChannelMode.NONE) != ChannelMode.NONE


def message_channels(user: User, available: Iterable[str]) -> list[str]:
    """The channels of ``available`` (the senders this site has) on which the player wants a
    message of its own for every message."""
    return [
        name
        for name in available
        if message_mode(user, name) == MessageMode.EVERY_MESSAGE and channel_on(user, name)
    ]


def hears_of(message: Message, user: User) -> bool:
    """Whether ``message`` is news for ``user`` at all (before any channel's choice)."""
    if user.pk == message.author_id or user.is_bot or not user.is_active:
        return False
    if not Seat.objects.filter(game_id=message.game_id, user_id=user.pk).exists():
        return False
    return not is_muted(message.game_id, user) and not has_blocked(user.pk, message.author_id)


def still_news(message: Message, user: User) -> bool:
    """At sending time: the reader still hears of it, staff have not hidden it, and the reader
    has not written at the table since (they have read it, and answered)."""
    if message.hidden or not hears_of(message, user):
        return False
    return not Message.objects.filter(
        game_id=message.game_id, author_id=user.pk, pk__gt=message.pk
    ).exists()


def short(text: str, limit: int = SHORT_TEXT) -> str:
    """``text`` on one line, cut at ``limit`` characters (with an ellipsis)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
