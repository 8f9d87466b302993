"""A whole game consistent with one player's view: the hidden cards sampled, the rest as seen.

A bot that searches needs states it can play forward, but it may only know what its player may
see (records.md ``--as N``: own hand, public rows, piles, counts). ``sample`` deals the cards the
viewer has not seen (other hands, deck, removed) at random from a seeded generator, so one view
and one generator give the same game whatever the real hidden cards are. The view carries no
history, so nothing is inferred from past moves: every consistent deal is equally likely.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .base import Game
from .board import BoardGame
from .board_layouts import END_STONE
from .cardgame import PHASE_NAMES as CARD_PHASES
from .cardgame import PILE_KEYS, WISH_VALUES, CardGame
from .cards import ASCENDING, COLOUR_INDEX, COLOURS, DESCENDING, UNDECIDED
from .cli import outcome

_DIRECTIONS = {None: UNDECIDED, "ascending": ASCENDING, "descending": DESCENDING}
NOBODY = -1


def player_view(game: Game, player: int | None = None) -> dict[str, Any]:
    """What ``player`` (default: the one to move) may see: the records.md ``--as N`` answer."""
    if player is None:
        player = game.to_move
        if player is None:
            raise ValueError("a finished game awaits nobody: name the player")
    return outcome(game, player)


def viewer_of(view: dict[str, Any]) -> int:
    return int(view["state"]["viewer"])


def unseen_cards(cls: type[Game], state: dict[str, Any]) -> list[str]:
    """The cards the viewer has not seen, in the game's fixed order: every card of the game less
    the own hand, the discard piles and everything laid in front of the players."""
    seen: Counter[str] = Counter(state["players"][state["viewer"]]["hand"])
    for pile in state["piles"].values():
        seen.update(pile)
    for player in state["players"]:
        for key in ("columns", "rows"):
            for cards in player.get(key, {}).values():
                seen.update(cards)
        seen.update(player.get("point_row", ()))
    unseen = Counter(cls.ALL_CARDS) - seen
    if sum(seen.values()) + sum(unseen.values()) != len(cls.ALL_CARDS):
        raise ValueError("the view shows cards the game does not have")
    return sorted(unseen.elements())


def sample(view: dict[str, Any], rng: random.Random) -> Game:
    """A full game state that the viewer cannot tell from the real one (hidden cards drawn from
    ``rng``). Its ``view(viewer)`` equals the view's state; its ``actions`` are empty."""
    state = view["state"]
    cls = BoardGame if view["game"] == BoardGame.name else CardGame
    cards = unseen_cards(cls, state)
    rng.shuffle(cards)
    viewer = state["viewer"]
    hands: list[list[str]] = []
    at = 0
    for p, player in enumerate(state["players"]):
        if p == viewer:
            hands.append(list(player["hand"]))
            continue
        count = player["hand_count"]
        hands.append(cards[at : at + count])
        at += count
    deck = cards[at : at + state["deck_count"]]
    at += state["deck_count"]
    removed = cards[at:]
    if len(removed) != state["removed_count"]:
        raise ValueError("the view's card counts do not add up")
    fields = (_board_fields if cls is BoardGame else _card_fields)(state)
    fields.update(
        n_players=len(state["players"]),
        options=dict(state["options"]),
        hands=hands,
        deck=deck,
        deck_pos=0,
        removed=removed,
        current=view["to_move"] if view["to_move"] is not None else 0,
        end_reason=state["end_reason"],
        actions=[],
    )
    game = cls.__new__(cls)
    for name, value in fields.items():
        setattr(game, name, value)
    game._reset_caches()
    return game


def _row_shape(cards: list[str], direction: str | None) -> tuple[int, int]:
    """(last value, direction) of a column or row from its cards; -1 after a closing card."""
    last = cards[-1][1:]
    return (-1 if last == "x" else int(last)), _DIRECTIONS[direction]


def _board_fields(state: dict[str, Any]) -> dict[str, Any]:
    n = len(state["players"])
    col_cards = [[[] for _ in COLOURS] for _ in range(n)]
    last = [[-1] * 5 for _ in range(n)]
    dirs = [[UNDECIDED] * 5 for _ in range(n)]
    pos = [[0] * 5 for _ in range(n)]
    big = [NOBODY] * n
    smalls_out, wishes, points = [0] * n, [0] * n, [0] * n
    for p, player in enumerate(state["players"]):
        for colour, cards in player["columns"].items():
            ci = COLOUR_INDEX[colour]
            col_cards[p][ci] = list(cards)
            last[p][ci], dirs[p][ci] = _row_shape(cards, player["directions"][colour])
        for colour, figure in player["figures"].items():
            ci = COLOUR_INDEX[colour]
            pos[p][ci] = figure["stone"]
            if figure["big"]:
                big[p] = ci
        smalls_out[p] = 4 - player["on_start"]["small"]
        wishes[p] = player["wishing_stones"]
        points[p] = player["tile_points"]
    tiles: list[list[Any]] = [[None] * (END_STONE + 1) for _ in COLOURS]
    for colour, stones in state["tiles"].items():
        for stone, tile in stones.items():
            tiles[COLOUR_INDEX[colour]][int(stone)] = tile
    discarded = state["discarded_this_turn"]
    return {
        "phase": BoardGame.PHASE_NAMES.index(state["phase"]),
        "no_redraw": state["options"]["no_redraw_own_discard"],
        "piles": [list(state["piles"][c]) for c in COLOURS],
        "tiles": tiles,
        "col_cards": col_cards,
        "last": last,
        "dirs": dirs,
        "pos": pos,
        "big": big,
        "smalls_out": smalls_out,
        "wishes": wishes,
        "points": points,
        "goal": state["goal_count"],
        "discarded": COLOUR_INDEX[discarded[0]] if discarded else NOBODY,
    }


def _card_fields(state: dict[str, Any]) -> dict[str, Any]:
    n = len(state["players"])
    rows: list[list[list[str]]] = [[[] for _ in COLOURS] for _ in range(n)]
    last = [[-1] * 5 for _ in range(n)]
    dirs = [[UNDECIDED] * 5 for _ in range(n)]
    closed = [[0] * 5 for _ in range(n)]
    for p, player in enumerate(state["players"]):
        for colour, cards in player["rows"].items():
            ci = COLOUR_INDEX[colour]
            rows[p][ci] = list(cards)
            last[p][ci], dirs[p][ci] = _row_shape(cards, player["directions"][colour])
            closed[p][ci] = sum(1 for card in cards if card.endswith("x"))
    phase = CARD_PHASES.index(state["phase"])
    ender = state["ended_by"]
    end_left = 0
    if phase == CARD_PHASES.index("end") and ender is not None:
        asked = (state["to_move"] - ender) % n or n  # players asked so far, this one included
        end_left = n - asked
    blocked = 0
    for key in state["discarded_this_turn"]:
        blocked |= 1 << PILE_KEYS.index(key)
    free_stones = set(state["wishing_stones"])
    return {
        "phase": phase,
        "closing_open": state["options"]["closing_may_open_row"],
        "piles": [list(state["piles"][key]) for key in PILE_KEYS],
        "rows": rows,
        "last": last,
        "dirs": dirs,
        "closed": closed,
        "point_rows": [list(player["point_row"]) for player in state["players"]],
        "free": [v in WISH_VALUES and f"W{v}" in free_stones for v in range(11)],
        "stones": [list(player["wishing_stones"]) for player in state["players"]],
        "closed_rows": state["closed_rows"],
        "draws_left": state["draws_left"],
        "blocked": blocked,
        "end_laid": state["end_phase_laid"] or 0,
        "end_left": end_left,
        "ender": ender,
    }


__all__ = ["player_view", "sample", "unseen_cards", "viewer_of"]
