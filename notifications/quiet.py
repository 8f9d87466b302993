"""Quiet while active: no turn message, nor table talk, for a game the player is at.

A player who has the game's page open (its live stream marks them present: ``games.presence``)
or took a step in the game on its page in the last NOTIFICATION_QUIET_MINUTES (default 10)
gets no turn message for it on any channel: the row waits, and goes out only if the turn is
still theirs once they have been away that long (the sender skips a turn that moved on).
Playing a bot on the page used to bring an email a move. Only the page counts: a move made by
replying to the turn email, through its links or the API is no sign of the page, and an email
player needs their next turn email at once. Reminders, deadline warnings, timeouts and the end
of a game are never held. A player who sets "always notify me" (``User.always_notify``) gets
every turn message at once, as before.

Table talk (``NotificationKind.MESSAGE``) is held the same way: a player at the page reads it
there, live; the row goes out once they have been away the delay (unless they answered at the
table meanwhile: ``talk_news.still_news``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from accounts.models import User
from games import presence
from games.models import Game

from .models import NotificationKind

#: the kinds that wait while their player is at the game
HELD_KINDS = frozenset({NotificationKind.TURN, NotificationKind.MESSAGE})


def delay() -> timedelta:
    return timedelta(minutes=settings.NOTIFICATION_QUIET_MINUTES)


def _last_step_at(game_id: int, user_id: int, since: datetime) -> datetime | None:
    """When the player last acted in the game from its page (``presence.mark_stepped``), if
    after ``since``; not the game's events, which cannot tell the page from an email reply."""
    last = presence.stepped_at(game_id, user_id)
    return last if last is not None and last >= since else None


def hold_until(
    *, kind: str, game_id: int | None, seat: int | None, user: User, now: datetime
) -> datetime | None:
    """When a ``kind`` message of ``game_id`` for ``user`` (at ``seat``) may go out, if not
    now: the player is on the game's page (then ``now`` + the delay) or acted on that page
    within the delay (then that step + the delay)."""
    wait = delay()
    if kind not in HELD_KINDS or game_id is None or seat is None or not wait:
        return None
    if user.always_notify:
        return None
    until = None
    if presence.is_present(game_id, user.pk):
        until = now + wait
    last = _last_step_at(game_id, user.pk, now - wait)
    if last is not None and (until is None or last + wait > until):
        until = last + wait
    return until if until is not None and until > now else None


def turn_still_on(game: Game | None, seat: int | None, seq: int | None) -> bool:
    """The turn a row announced is still the game's (read from the row's game as loaded)."""
    return game is not None and game.to_move == seat and game.turn_seq == seq
