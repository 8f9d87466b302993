"""The board game's greedy heuristic: score each legal action one step ahead, pick the best.

It values a figure's step by the stone values it gains (doubled for the big figure) plus the tile
it reaches, and a card kept by how well it still fits its column. Simple, but it plays columns in
order and avoids opening paths it cannot follow, which is what beats random play.
"""

from __future__ import annotations

import random

from .board import (
    ACTIONS,
    CLOVER_TILE,
    DISCARD,
    NOBODY,
    PLAY,
    START,
    WISH_SCORES,
    WISH_TILE,
    BoardGame,
)
from .board_layouts import END_STONE, STONE_VALUES
from .bots import HEURISTICS, NEVER, SCORERS
from .cards import ASCENDING, COLOUR_INDEX, DESCENDING

START_COST_PER_MISSING_CARD = 2.5  # a path opened without cards to follow stays at -4
GAP_COST = 0.7  # each value skipped in a column is a card of that colour lost for later
DECK_DRAW_VALUE = 0.8


def _step_value(game: BoardGame, p: int, ci: int) -> float:
    """What one step forward of the player's figure on path ``ci`` is worth."""
    stone = game.pos[p][ci]
    if stone >= END_STONE:
        return -100.0
    mult = 2 if game.big[p] == ci else 1
    value = (STONE_VALUES[stone + 1] - STONE_VALUES[stone]) * mult
    tile = game.tiles[ci][stone + 1]
    if tile == WISH_TILE:
        held = min(game.wishes[p], len(WISH_SCORES) - 2)
        value += WISH_SCORES[held + 1] - WISH_SCORES[held]
    elif tile == CLOVER_TILE:
        value += 2.0
    elif tile is not None:
        value += int(tile)
    return value


def _fit(game: BoardGame, p: int, ci: int, value: int) -> float | None:
    """How well ``value`` extends the column (None: not at all): the gap it leaves."""
    d, last = game.dirs[p][ci], game.last[p][ci]
    if d == ASCENDING:
        return None if value < last else float(value - last)
    if d == DESCENDING:
        return None if value > last else float(last - value)
    return float(abs(value - last)) / 2  # undecided: the gap fixes a direction, half as bad


def _colour_counts(hand: list[str]) -> dict[str, int]:
    """How many cards of each colour the hand holds (counted once per scoring, not per action)."""
    counts: dict[str, int] = {}
    for card in hand:
        counts[card[0]] = counts.get(card[0], 0) + 1
    return counts


def _keep_value(game: BoardGame, p: int, card: str, counts: dict[str, int]) -> float:
    """How much the player loses by giving this card away."""
    colour, value = card[0], int(card[1:])
    ci = COLOUR_INDEX[colour]
    if game.col_cards[p][ci]:
        gap = _fit(game, p, ci, value)
        if gap is None:
            return 0.0
        return max(0.5, 4.0 - GAP_COST * gap)
    same = counts.get(colour, 0)
    edge = min(value, 10 - value)
    return max(0.0, same - 1.5) + max(0.0, 2.0 - edge * 0.5)


def _play_value(game: BoardGame, p: int, action: str, counts: dict[str, int]) -> float:
    kind, card, ci, value, extra = ACTIONS[action]
    if kind == START:  # open a path with the big (extra) or a small figure
        same = counts.get(card[0], 0) - 1
        late = game.deck_count < 12 * game.n_players
        edge = min(value, 10 - value)
        base = STONE_VALUES[1] * (2 if extra else 1)
        value_now = base + _tile_bonus(game, p, ci, 1)
        potential = START_COST_PER_MISSING_CARD * min(same, 5) - edge * 0.6
        if extra and same < 4:
            potential -= 6  # the big figure belongs on the longest colour
        return value_now + potential - (8 if late else 3)
    gap = _fit(game, p, ci, value) or 0.0
    cost = GAP_COST * max(0.0, gap - 1)
    if kind == PLAY:
        return _step_value(game, p, ci) - cost + 1.0
    # REDIRECT: the card is free to lay; move the best other figure
    if extra == NOBODY:
        return 0.5 - cost
    return _step_value(game, p, extra) - cost + 1.0


def _tile_bonus(game: BoardGame, p: int, ci: int, stone: int) -> float:
    tile = game.tiles[ci][stone]
    if tile == WISH_TILE:
        return 2.0
    if tile == CLOVER_TILE:
        return 1.0
    return float(int(tile)) if tile is not None else 0.0


def _draw_value(game: BoardGame, p: int, action: str, counts: dict[str, int]) -> float:
    source = ACTIONS[action][4]
    if source == NOBODY:
        return DECK_DRAW_VALUE
    if source == game.discarded:  # the card just discarded: the turn would be a pass
        return NEVER
    card = game.piles[source][-1]
    ci, value = source, int(card[1:])
    if not game.col_cards[p][ci]:
        return 0.3 * counts.get(card[0], 0)
    gap = _fit(game, p, ci, value)
    if gap is None:
        return -1.0
    return 3.0 - GAP_COST * gap


def greedy_action(game: BoardGame, rng: random.Random) -> str:
    """The legal action with the highest one-step value; ties broken by ``rng``."""
    scored = scored_actions(game)
    best = max(score for score, _ in scored)
    return rng.choice([a for score, a in scored if score >= best - 1e-9])


def scored_actions(game: BoardGame) -> list[tuple[float, str]]:
    """Every legal action with its one-step value (the search bot's prior)."""
    p = game.current
    legal = game.legal()
    phase = game.phase_name
    if phase == "clover":
        scored = [
            (-0.1 if a == "clover pass" else _step_value(game, p, ACTIONS[a][4]), a) for a in legal
        ]
    elif phase == "draw":
        counts = _colour_counts(game.hands[p])
        scored = [(_draw_value(game, p, a, counts), a) for a in legal]
    else:
        # the search scores every position of every playout: the hand's colours are counted
        # once here, not once per action
        counts = _colour_counts(game.hands[p])
        scored = []
        for a in legal:
            entry = ACTIONS[a]
            if entry[0] == DISCARD:
                scored.append((-_keep_value(game, p, entry[1], counts), a))
            else:
                scored.append((_play_value(game, p, a, counts), a))
    return scored


HEURISTICS[BoardGame.name] = greedy_action
SCORERS[BoardGame.name] = scored_actions
