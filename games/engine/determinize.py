"""A whole game made from what one player may see: the hidden cards dealt at random.

A bot that sees only its own view (an API client) can still run the engine's bots: the
cards it cannot see (other hands, the deck, the removed cards) are dealt from the cards not
in sight, in the counts the view gives. The bot's own choices then depend only on what it
may see, and ``legal()`` is the same as the real game's for the viewer (a test checks it).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .base import Game
from .board import NOBODY, PHASE_NAMES, SMALL_FIGURES, BoardGame
from .board_layouts import END_STONE
from .cardgame import PHASE_NAMES as CARD_PHASES
from .cardgame import PILE_KEYS, CardGame
from .cards import COLOUR_INDEX, COLOURS, DIRECTION_NAMES

_DIRECTIONS = {name: value for value, name in DIRECTION_NAMES.items()}


def _unseen(cls: type[Game], seen: list[str]) -> list[str]:
    left = Counter(cls.ALL_CARDS)
    left.subtract(seen)
    return [card for card, n in sorted(left.items()) for _ in range(max(0, n))]


def board_from_view(view: dict[str, Any], rng: random.Random | None = None) -> BoardGame:
    """A board game equal to the real one in everything ``view`` shows (a player's view)."""
    rng = rng or random.Random(0)
    me = view["viewer"]
    players = view["players"]
    n = len(players)
    game = BoardGame.__new__(BoardGame)
    game.n_players = n
    game.options = dict(view["options"])
    game.no_redraw = bool(game.options.get("no_redraw_own_discard", False))
    game.actions = []
    game.phase = PHASE_NAMES.index(view["phase"])
    game.current = view["to_move"] if view["to_move"] is not None else 0
    game.piles = [list(view["piles"].get(c, [])) for c in COLOURS]
    game.col_cards = [[list(p["columns"].get(c, [])) for c in COLOURS] for p in players]
    game.last = [
        [int(cards[-1][1:]) if cards else -1 for cards in columns] for columns in game.col_cards
    ]
    game.dirs = [[_DIRECTIONS[p["directions"].get(c)] for c in COLOURS] for p in players]
    game.pos = [[p["figures"].get(c, {}).get("stone", 0) for c in COLOURS] for p in players]
    game.big = [
        next((COLOUR_INDEX[c] for c, f in p["figures"].items() if f["big"]), NOBODY)
        for p in players
    ]
    game.smalls_out = [SMALL_FIGURES - p["on_start"]["small"] for p in players]
    game.wishes = [p["wishing_stones"] for p in players]
    game.points = [p["tile_points"] for p in players]
    game.goal = view["goal_count"]
    game.end_reason = view["end_reason"]
    top = view["discarded_this_turn"]
    game.discarded = COLOUR_INDEX[top[0]] if top else NOBODY
    game.tiles = [[None] * (END_STONE + 1) for _ in COLOURS]
    for colour, stones in view["tiles"].items():
        for stone, tile in stones.items():
            game.tiles[COLOUR_INDEX[colour]][int(stone)] = tile
    seen = [card for pile in game.piles for card in pile]
    seen += [card for columns in game.col_cards for cards in columns for card in cards]
    seen += players[me]["hand"]
    unseen = _unseen(BoardGame, seen)
    rng.shuffle(unseen)
    game.hands = []
    for p, player in enumerate(players):
        if p == me:
            game.hands.append(list(player["hand"]))
        else:
            game.hands.append([unseen.pop() for _ in range(player["hand_count"])])
    game.removed = [unseen.pop() for _ in range(view["removed_count"])]
    game.deck = [unseen.pop() for _ in range(view["deck_count"])]
    game.deck_pos = 0
    game._reset_caches()
    return game


def cards_from_view(view: dict[str, Any], rng: random.Random | None = None) -> CardGame:
    """A card game equal to the real one in everything ``view`` shows (a player's view)."""
    rng = rng or random.Random(0)
    me = view["viewer"]
    players = view["players"]
    n = len(players)
    game = CardGame.__new__(CardGame)
    game.n_players = n
    game.options = dict(view["options"])
    game.closing_open = bool(game.options.get("closing_may_open_row", False))
    game.actions = []
    game.phase = CARD_PHASES.index(view["phase"])
    game.current = view["to_move"] if view["to_move"] is not None else 0
    game.piles = [list(view["piles"].get(key, [])) for key in PILE_KEYS]
    game.rows = [[list(p["rows"].get(c, [])) for c in COLOURS] for p in players]
    game.dirs = [[_DIRECTIONS[p["directions"].get(c)] for c in COLOURS] for p in players]
    game.closed = [
        [2 if p["sealed"].get(c) else 1 if p["closed"].get(c) else 0 for c in COLOURS]
        for p in players
    ]
    game.last = [
        [
            -1 if closed or not row else int(row[-1][1:])
            for row, closed in zip(rows, closings, strict=True)
        ]
        for rows, closings in zip(game.rows, game.closed, strict=True)
    ]
    game.point_rows = [list(p["point_row"]) for p in players]
    game.stones = [list(p["wishing_stones"]) for p in players]
    free = set(view["wishing_stones"])
    game.free = [f"W{v}" in free for v in range(11)]
    game.closed_rows = view["closed_rows"]
    game.draws_left = view["draws_left"]
    game.blocked = sum(1 << PILE_KEYS.index(key) for key in view["discarded_this_turn"])
    game.end_laid = view["end_phase_laid"] or 0
    game.end_reason = view["end_reason"]
    game.ender = view["ended_by"]
    game.end_left = 0
    if view["phase"] == "end" and game.ender is not None:
        asked = (game.current - game.ender - 1) % n + 1  # the ones asked so far, this one too
        game.end_left = n - asked
    seen = [card for pile in game.piles for card in pile]
    seen += [card for rows in game.rows for row in rows for card in row]
    seen += [card for row in game.point_rows for card in row]
    seen += players[me]["hand"]
    unseen = _unseen(CardGame, seen)
    rng.shuffle(unseen)
    game.hands = []
    for p, player in enumerate(players):
        if p == me:
            game.hands.append(list(player["hand"]))
        else:
            game.hands.append([unseen.pop() for _ in range(player["hand_count"])])
    game.removed = [unseen.pop() for _ in range(view["removed_count"])]
    game.deck = [unseen.pop() for _ in range(view["deck_count"])]
    game.deck_pos = 0
    game._reset_caches()
    return game


def from_view(kind: str, view: dict[str, Any], rng: random.Random | None = None) -> Game:
    """A whole game consistent with a player's ``view`` (ValueError for a game not done yet)."""
    if kind == BoardGame.name:
        return board_from_view(view, rng)
    if kind == CardGame.name:
        return cards_from_view(view, rng)
    raise ValueError(f"no determinization for {kind!r}")
