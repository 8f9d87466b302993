"""Who has a game's page open: marked by the live stream, read by the notifications.

The live stream server (``live.views``) marks a logged-in player present at a game while their
page's stream is open, refreshing the mark with every keep-alive; the mark lives in the cache
for a few keep-alives, so a stream that died without goodbye stops counting soon after. The
cache is shared by every process of the site (Redis in production, files on the embedded
default). A cache that is down marks and finds nobody: the player then gets their messages,
as before this existed.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

#: a mark outlives this many keep-alive periods without a refresh
KEEPALIVES_KEPT = 3


def _key(game_id: int, user_id: int) -> str:
    return f"presence:{game_id}:{user_id}"


def ttl() -> int:
    return max(1, int(settings.LIVE_KEEPALIVE_SECONDS * KEEPALIVES_KEPT))


async def amark(game_id: int, user_id: int) -> None:
    """The player's page of the game is open (the stream's start and each keep-alive)."""
    try:
        await cache.aset(_key(game_id, user_id), 1, timeout=ttl())
    except Exception:  # the stream goes on without presence
        log.debug("presence not recorded", exc_info=True)


async def aunmark(game_id: int, user_id: int) -> None:
    """The page's stream ended."""
    try:
        await cache.adelete(_key(game_id, user_id))
    except Exception:
        log.debug("presence not removed", exc_info=True)


def mark(game_id: int, user_id: int) -> None:
    """``amark`` for synchronous callers (tests, a page render)."""
    try:
        cache.set(_key(game_id, user_id), 1, timeout=ttl())
    except Exception:
        log.debug("presence not recorded", exc_info=True)


def is_present(game_id: int, user_id: int) -> bool:
    try:
        return cache.get(_key(game_id, user_id)) is not None
    except Exception:
        return False
