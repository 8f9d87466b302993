"""The chat webhook channel's sender: an outbox row, worded as every channel words it
(``messages.describe``), POSTed to the player's webhook by ``webhook.send_webhook``.

The webhook's own failures map onto the outbox's: a destination that can never work
(``webhook.PermanentFailure``: refused by the network guard, a redirect, a 4xx) fails the row
at once; anything else (no answer, a 5xx, 429) is retried with the usual back-off.
"""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.selectors import GameReads

from ..models import Notification, NotificationKind
from . import PermanentFailure, SimpleSender, Skipped, webhook
from .messages import Message, describe, test_message


def event_of(
    message: Message, kind: str, notification: Notification | None = None
) -> dict[str, Any]:
    """The webhook event (``webhook``'s docstring) for a message: no card, only public words."""
    game = notification.game if notification is not None else None
    deadline = None
    if game is not None and game.deadline is not None and kind != NotificationKind.FINISHED:
        deadline = game.deadline.isoformat()
    return {
        "type": kind,
        "text": f"{message.title}: {message.body}",
        "game": game.pk if game is not None else None,
        "url": message.url,
        "deadline": deadline,
    }


def deliver(user: User, event: dict[str, Any]) -> None:
    """The event to the player's webhook; Skipped when they have none."""
    destination = webhook.destination_of(user)
    if destination is None:
        raise Skipped
    try:
        webhook.send_webhook(destination, event)
    except webhook.PermanentFailure as exc:
        raise PermanentFailure(str(exc)) from exc


class WebhookSender(SimpleSender):
    name = "webhook"

    def send(self, notification: Notification) -> None:
        message = describe(notification, GameReads())
        if message is None:
            raise Skipped
        deliver(notification.user, event_of(message, notification.kind, notification))

    def send_test(self, user: User) -> None:
        deliver(user, event_of(test_message(user), "test"))
