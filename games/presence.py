"""Who is at a game's page: marked by the live stream and the page's actions, read by the
notifications (``notifications.quiet``).

The live stream server (``live.views``) marks a logged-in player present at a game while their
page's stream is open, refreshing the mark with every keep-alive; the mark lives in the cache
for a few keep-alives, so a stream that died without goodbye stops counting soon after. An
action taken with the page's buttons (``games.views.play.game_act``) records when the player
stepped there, kept for NOTIFICATION_QUIET_MINUTES: a page without a stream (the stream server
down) still counts. A move made any other way (a reply to the turn email, its links, the API,
a bot or a timeout) records nothing: an email player needs the next turn email at once. The
cache is shared by every process of the site (Redis in production, files on the embedded
default). A cache that is down marks and finds nobody: the player then gets their messages,
as before this existed.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

log = logging.getLogger(__name__)

#: a mark outlives this many keep-alive periods without a refresh
KEEPALIVES_KEPT = 3


def _key(game_id: int, user_id: int) -> str:
    return f"presence:{game_id}:{user_id}"


def _stepped_key(game_id: int, user_id: int) -> str:
    return f"stepped:{game_id}:{user_id}"


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


def mark_stepped(game_id: int, user_id: int) -> None:
    """The player acted in the game from its page, now (``game_act``, after the action): kept
    as long as a step holds their turn messages (NOTIFICATION_QUIET_MINUTES)."""
    quiet = int(settings.NOTIFICATION_QUIET_MINUTES * 60)
    if quiet <= 0:
        return
    try:
        cache.set(_stepped_key(game_id, user_id), timezone.now(), timeout=quiet)
    except Exception:  # the move stands; the player may get a turn message sooner
        log.debug("step not recorded", exc_info=True)


def stepped_at(game_id: int, user_id: int) -> datetime | None:
    """When the player last acted in the game from its page, if the mark is still kept."""
    try:
        value = cache.get(_stepped_key(game_id, user_id))
    except Exception:
        return None
    return value if isinstance(value, datetime) else None
