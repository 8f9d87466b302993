"""The publishing side: after a commit, tell the stream servers where the game stands.

Runs in whatever process committed (gunicorn, runserver, a Celery worker), as a
``games.services.CHANGED_HOOKS`` hook, after the response in a request. Losing a message is
not fatal: a page that reconnects, or hears of the game's next change, catches up.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from redis import RedisError

from . import transport
from .selectors import game_change, written_change

if TYPE_CHECKING:
    from games.services import Position

log = logging.getLogger(__name__)


def game_changed(game_id: int, position: Position | None = None) -> None:
    """Publish the game's committed state: the ``position`` its action wrote, else one read of
    the game and its seats."""
    change = game_change(game_id) if position is None else written_change(game_id, position)
    if change is None:
        return
    try:
        transport.publish(change.encode())
    except (OSError, RedisError) as exc:
        log.warning("live update not published", extra={"game_id": game_id, "error": str(exc)})
