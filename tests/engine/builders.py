"""Small hand-written records for rule tests: name the cards that matter, fill in the rest.

``board_record(hands=[...], deck=[...])`` puts the named cards on top of the deck in the order
given and lays every other card of the game below them (or into ``removed`` for two players),
so that a test states only what its rule needs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engine.base import Game
from games.engine.board import BoardGame
from games.engine.board_layouts import COLOURS

#: Tiles with nothing on the stones tests usually walk (1..4) unless a test asks otherwise:
#: every path gets its wishing stone/clover/point tiles on stones 5..9.
QUIET_TILES: dict[str, dict[str, str]] = {
    "g": {"5": "wish", "6": "clover", "7": "1", "8": "wish", "9": "clover"},
    "y": {"5": "wish", "6": "clover", "7": "1", "8": "wish", "9": "clover"},
    "r": {"5": "wish", "6": "clover", "7": "2", "8": "wish", "9": "clover"},
    "p": {"5": "wish", "6": "clover", "7": "2", "8": "2", "9": "clover"},
    "b": {"5": "wish", "6": "clover", "7": "3", "8": "3", "9": "wish"},
}


def fill_setup(
    cls: type[Game],
    hands: list[list[str]],
    deck: list[str] | None = None,
    removed: list[str] | None = None,
) -> dict[str, Any]:
    """A complete setup: the given hands and deck top; the other cards after them."""
    deck = list(deck or [])
    rest = Counter(cls.ALL_CARDS)
    named = [card for hand in hands for card in hand] + deck + list(removed or [])
    for card in named:
        if rest[card] <= 0:
            raise ValueError(f"{card} is named more often than the game has it")
        rest[card] -= 1
    leftovers: list[str] = []
    for card in cls.ALL_CARDS:
        if rest[card] > 0:
            leftovers.append(card)
            rest[card] -= 1
    removed = list(removed or [])
    if len(hands) == 2:
        need = cls.REMOVED_WITH_TWO - len(removed)
        # keep the named deck on top; the removed cards come from the end of the leftovers
        removed += leftovers[len(leftovers) - need :] if need else []
        leftovers = leftovers[: len(leftovers) - need]
    return {"hands": [list(h) for h in hands], "deck": deck + leftovers, "removed": removed}


def board_record(
    hands: list[list[str]],
    deck: list[str] | None = None,
    actions: list[str] | None = None,
    tiles: dict[str, dict[str, str]] | None = None,
    options: dict[str, bool] | None = None,
    removed: list[str] | None = None,
) -> dict[str, Any]:
    """A board-game record (records.md) with the named hands, deck top, tiles and actions."""
    setup = fill_setup(BoardGame, hands, deck, removed)
    setup["tiles"] = tiles or QUIET_TILES
    return {
        "format": 1,
        "game": "keltis",
        "players": [f"player{i}" for i in range(len(hands))],
        "options": options or {},
        "setup": setup,
        "actions": list(actions or []),
    }


def board_game(**kwargs: Any) -> BoardGame:
    """The game after the record's actions (same arguments as ``board_record``)."""
    from games.engine.records import read_record, replay

    game = replay(read_record(board_record(**kwargs)))
    assert isinstance(game, BoardGame)
    return game


__all__ = ["COLOURS", "QUIET_TILES", "board_game", "board_record", "fill_setup"]
