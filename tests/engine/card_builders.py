"""Small hand-written card-game records: name the cards that matter, fill in the rest.

``card_record(hands=[...], deck=[...])`` uses the shared ``fill_setup``: the named deck cards
lie on top in the order given, every other card of the game below them (or, with two players,
in ``removed``). ``bottom`` names cards to move to the very bottom of the deck, for tests that
draw the deck's last cards.
"""

from __future__ import annotations

from typing import Any

from games.engine.cardgame import CardGame
from games.engine.records import read_record, replay

from .builders import fill_setup


def card_record(
    hands: list[list[str]],
    deck: list[str] | None = None,
    actions: list[str] | None = None,
    options: dict[str, bool] | None = None,
    removed: list[str] | None = None,
    bottom: list[str] | None = None,
) -> dict[str, Any]:
    """A card-game record (records.md) with the named hands, deck top/bottom and actions."""
    setup = fill_setup(CardGame, hands, deck, removed)
    for card in bottom or []:
        if card not in setup["deck"][len(deck or []) :]:
            raise ValueError(f"{card} is not among the deck's unnamed cards")
        setup["deck"].reverse()  # take the lowest copy, keep the named top in place
        setup["deck"].remove(card)
        setup["deck"].reverse()
        setup["deck"].append(card)
    return {
        "format": 1,
        "game": CardGame.name,
        "players": [f"player{i}" for i in range(len(hands))],
        "options": options or {},
        "setup": setup,
        "actions": list(actions or []),
    }


def card_game(**kwargs: Any) -> CardGame:
    """The game after the record's actions (same arguments as ``card_record``)."""
    game = replay(read_record(card_record(**kwargs)))
    assert isinstance(game, CardGame)
    return game


def turn(play: str, draw: str = "draw deck") -> list[str]:
    """One ordinary turn: play (or discard) one card, then draw one."""
    return [play, draw]


__all__ = ["card_game", "card_record", "turn"]
