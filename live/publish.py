"""The publishing side: after a commit, tell the stream servers where the game stands.

Runs in whatever process committed (gunicorn, runserver, a Celery worker), as a
``games.services.CHANGED_HOOKS`` hook, after the response in a request. Losing a message is
not fatal: a page that reconnects, or hears of the game's next change, catches up.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from django.db import transaction
from redis import RedisError

from games.after_response import call_after_response

from . import transport
from .messages import GameChange
from .selectors import game_change, written_change

if TYPE_CHECKING:
    from games.services import Position
    from talk.models import Message

log = logging.getLogger(__name__)


def game_changed(game_id: int, position: Position | None = None) -> None:
    """Publish the game's committed state: the ``position`` its action wrote, else one read of
    the game and its seats."""
    change = game_change(game_id) if position is None else written_change(game_id, position)
    if change is not None:
        _publish(change)


def talk_changed(message: Message) -> None:
    """A ``talk.services`` hook (POSTED_HOOKS, HIDDEN_HOOKS), inside the transaction that
    stores ``message``: once it has committed, the game's pages fetch their talk again (the
    game's mark is the same: the change names the message) and the players' API streams send
    it."""
    game_id, message_id = message.game_id, message.pk
    transaction.on_commit(lambda: call_after_response(message_changed, game_id, message_id))


def message_changed(game_id: int, message_id: int) -> None:
    change = game_change(game_id)
    if change is not None:
        _publish(replace(change, message=message_id))


def _publish(change: GameChange) -> None:
    try:
        transport.publish(change.encode())
    except (OSError, RedisError) as exc:
        extra = {"game_id": change.game, "error": str(exc)}
        log.warning("live update not published", extra=extra)
