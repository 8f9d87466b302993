"""What one player may have created and waiting at once: open games (tournaments have theirs
in ``tournaments.creation_limits``, built on the two helpers here).

One account once made 1,000 tournaments in 34 s, and 25 open games of one player pushed
everyone else's out of the lobby. The limits count rows in the database (no cache counter to
lose or to fail), under a lock on the creator's user row, so that two requests of one player
at once cannot both pass the count. Staff are not limited; neither are the games the site
makes itself (league matchmaker, tournament rounds): their callers say so to ``game_create``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.functional import Promise, lazy
from django.utils.translation import ngettext

from .models import Game, GameStatus


def is_limited(user: Any) -> bool:
    """Staff organise the site and are trusted with as many games and tournaments as needed."""
    return not (user.is_staff or user.is_superuser)


def lock_creator(user: Any) -> None:
    """Hold the creator's user row until the transaction ends (call inside one): a second
    creation by the same player waits here and then counts the first one's row."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))


def _open_games_text(limit: int) -> str:
    return ngettext(
        "You may have at most %(n)s open game waiting for players: cancel it or wait until it "
        "starts before you create another.",
        "You may have at most %(n)s open games waiting for players: cancel one or wait until "
        "one starts before you create another.",
        limit,
    ) % {"n": limit}


#: worded in the language active where the refusal is shown, like every GameServiceError
open_games_text = lazy(_open_games_text, str)


def open_game_refusal(creator: Any) -> Promise | None:
    """Why ``creator`` may not open one more game waiting for players, or None if they may.

    Call inside the creating transaction: it locks the creator's row first."""
    if not is_limited(creator):
        return None
    lock_creator(creator)
    limit = settings.MAX_OPEN_GAMES_PER_PLAYER
    if Game.objects.filter(created_by=creator, status=GameStatus.OPEN).count() >= limit:
        return open_games_text(limit)
    return None
