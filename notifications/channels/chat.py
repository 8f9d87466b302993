"""The chat webhook channel's place in the outbox: the hook the feeds room's module plugs into.

The feeds room builds ``notifications.channels.webhook`` (the player's destination, the Discord-,
Slack- or signed-JSON body and the SSRF guard of ``netguard``). This module is the outbox's
side of it, and asks of that module two names:

- ``send_webhook(destination, payload) -> None``: POST the payload (``Message.as_dict()``: title,
  body, url, tag) to the destination, raising on failure (``notifications.channels``'
  ``PermanentFailure`` for a destination that can never work, anything else to retry);
- ``destination_for(user)``: the player's destination, or None when they have none.

While that module (or one of the names) is missing, ``sender()`` is None: the registry does not
list "webhook", the settings page does not show it, and no webhook row is queued.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from accounts.models import User
from games.selectors import GameReads

from ..models import Notification
from . import SimpleSender, Skipped
from .messages import Message, describe, test_message


def _feeds_module() -> ModuleType | None:
    try:
        module = importlib.import_module("notifications.channels.webhook")
    except ImportError:
        return None
    if not (hasattr(module, "send_webhook") and hasattr(module, "destination_for")):
        return None
    return module


def deliver(user: User, message: Message) -> None:
    """The message to the player's webhook, through the feeds room's sender."""
    module = _feeds_module()
    destination = module.destination_for(user) if module is not None else None
    if destination is None:
        raise Skipped
    module.send_webhook(destination, message.as_dict())  # type: ignore[union-attr]


class WebhookSender(SimpleSender):
    name = "webhook"

    def send(self, notification: Notification) -> None:
        message = describe(notification, GameReads())
        if message is None:
            raise Skipped
        deliver(notification.user, message)

    def send_test(self, user: User) -> None:
        deliver(user, test_message(user))


def sender() -> WebhookSender | None:
    return WebhookSender() if _feeds_module() is not None else None
