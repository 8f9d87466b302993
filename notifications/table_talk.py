"""Table talk as news: the outbox rows a message makes due, queued inside the transaction that
stores it (``talk.services.POSTED_HOOKS``, registered in ``apps.ready``), and sent once it has
committed, as a move's rows are (``tasks.after_action``).

One row per other player and channel that wants every message (``talk_news``), keyed by
message, reader and channel (``message:<message>:<user>``, prefixed by the channel's name as
every row but email's is), so a second call queues nothing twice. While the reader is at the
game's page the row waits (``quiet``), as a turn's does. What "with the next turn email"
readers get is the turn email's section (``emails.turn_context``): nothing is queued now.
"""

from __future__ import annotations

from django.db import transaction

from games.after_response import call_after_response
from games.models import Seat
from talk.models import Message

from . import senders, tasks
from .models import Notification, NotificationKind
from .outbox import channel_key
from .talk_news import hears_of, message_channels


def message_key(message: Message, user_id: int) -> str:
    return f"message:{message.pk}:{user_id}"


def message_posted(message: Message) -> None:
    """POSTED_HOOKS: queue the rows of ``message`` for the others at its table, and their
    delivery after the commit (only when there is a row to send)."""
    available = list(senders.registry())
    rows = []
    seats = (
        Seat.objects.filter(game_id=message.game_id, user__isnull=False)
        .exclude(user_id=message.author_id)
        .select_related("user")
    )
    for seat in seats:
        user = seat.user
        if not hears_of(message, user):
            continue
        key = message_key(message, user.pk)
        rows += [
            Notification(
                key=channel_key(key, name),
                channel=name,
                kind=NotificationKind.MESSAGE,
                user=user,
                game_id=message.game_id,
                seat=seat.index,
                seq=message.seq,
                message=message,
            )
            for name in message_channels(user, available)
        ]
    if not rows:
        return
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    game_id = message.game_id
    transaction.on_commit(lambda: call_after_response(deliver, game_id))


def deliver(game_id: int) -> None:
    """After the commit: send the game's queued rows (the message's), by the worker."""
    tasks.wake(game_id)
