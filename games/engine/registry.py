"""The games the engine knows, by the name a record gives them."""

from __future__ import annotations

from .base import Game
from .board import BoardGame
from .cardgame import CardGame
from .errors import RecordError

GAMES: dict[str, type[Game]] = {BoardGame.name: BoardGame, CardGame.name: CardGame}


def game_class(name: str) -> type[Game]:
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(GAMES))
        raise RecordError(f"unknown game '{name}' (known: {known})") from None
