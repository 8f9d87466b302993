"""What one player may have created and waiting at once: open games, and unfinished games
with bots (tournaments have theirs in ``tournaments.creation_limits``, built on the two
helpers here).

A game with bots needs no other person to start, and every bot turn costs a worker CPU (a
strong bot most): one account once started 12 in a row. So a player may have only so many
unfinished (open or running) games with a bot seat that they created; the league's and the
tournaments' tables, which the site fills with bots itself, do not count.

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
from django.db.models import Exists, OuterRef
from django.utils.functional import Promise, lazy
from django.utils.translation import ngettext

from .models import Game, GameStatus, Seat


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


def _bot_games_text(limit: int) -> str:
    return ngettext(
        "You may have at most %(n)s unfinished game with bots: finish it before you create "
        "another.",
        "You may have at most %(n)s unfinished games with bots: finish one before you create "
        "another.",
        limit,
    ) % {"n": limit}


#: worded in the language active where the refusal is shown, like open_games_text
bot_games_text = lazy(_bot_games_text, str)


def unfinished_bot_games(creator: Any) -> int:
    """The games with a bot seat ``creator`` created that are open or running, but for the
    tables the league matchmaker and tournament rounds seat (their first player is their
    ``created_by``, yet the site made them)."""
    return (
        Game.objects.filter(
            created_by=creator,
            status__in=[GameStatus.OPEN, GameStatus.RUNNING],
            season_link__isnull=True,
            tournament_link__isnull=True,
        )
        .filter(Exists(Seat.objects.filter(game=OuterRef("pk")).exclude(bot="")))
        .count()
    )


def bot_game_refusal(creator: Any) -> Promise | None:
    """Why ``creator`` may not create one more game with bots, or None if they may
    (MAX_BOT_GAMES_PER_PLAYER unfinished ones at most).

    Call inside the creating transaction: it locks the creator's row first."""
    if not is_limited(creator):
        return None
    lock_creator(creator)
    limit = settings.MAX_BOT_GAMES_PER_PLAYER
    if unfinished_bot_games(creator) >= limit:
        return bot_games_text(limit)
    return None
