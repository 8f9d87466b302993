"""Who may watch a game: anyone, except at a private table (``Game.private``), which only its
players see (its page, history, record, live stream and the API's reads). Staff see every game,
as they do in the admin. A game nobody may watch answers as a game that does not exist: a
private table's number says nothing to a stranger."""

from __future__ import annotations

from typing import Any

from .models import Game, Seat


def may_watch(game: Game, user: Any) -> bool:
    if not game.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return Seat.objects.filter(game_id=game.pk, user_id=user.pk).exists()
