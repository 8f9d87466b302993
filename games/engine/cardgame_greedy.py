"""A one-step heuristic for Keltis: Das Kartenspiel (the ``greedy`` bot).

Each legal action is tried on a copy and the result is valued for the player to move: the score
as if the game ended now, but with every open row valued at the length it may still reach (the
fitting cards in hand, plus the unseen fitting cards the player may yet draw). So the bot lays
small steps, keeps cards that fit, discards dead ones, starts a row only while it can still
grow, claims wishing stones when the two cards are worth less than the stone, and closes a row
once it cannot grow. The generator only breaks ties.
"""

from __future__ import annotations

import random

from .base import Game
from .bots import HEURISTICS, SCORERS
from .cardgame import (
    ACTIONS,
    DISCARD,
    DRAW_PHASE,
    END_PHASE,
    FINISHED,
    PLAY_PHASE,
    ROW_SCORES,
    CardGame,
    wish_score,
)
from .cards import ASCENDING, CARDS, CLOSING, COLOUR_INDEX, DESCENDING, NUMBER

#: a hand card is laid later with at most this chance (fewer turns left: less)
HAND_CHANCE = 0.9
#: of the fitting cards the player draws, the share that still fits when laid
DRAWN_FIT = 0.6
#: an unstarted colour counts this share of what starting it would be worth
UNSTARTED_SHARE = 0.5
#: what an unknown deck card is worth in hand, against a known card from a pile
DECK_CARD_VALUE = 0.6
#: ending the game: bonus when leading by this margin, malus otherwise
END_MARGIN, END_WEIGHT = 2, 4.0

_INFO = {
    card: (CARDS[card].kind, COLOUR_INDEX.get(CARDS[card].colour or "", -1), CARDS[card].value)
    for card in set(CardGame.ALL_CARDS)
}
_FULL = [[0] * 11 for _ in range(5)]  # copies of each number card, by colour and value
for _card in CardGame.ALL_CARDS:
    _kind, _ci, _value = _INFO[_card]
    if _kind == NUMBER:
        _FULL[_ci][_value] += 1


def _row_value(length: float) -> float:
    """The row score table, interpolated for an expected (fractional) number of cards."""
    if length >= len(ROW_SCORES) - 1:
        return float(ROW_SCORES[-1])
    low = int(length)
    frac = length - low
    return ROW_SCORES[low] + frac * (ROW_SCORES[low + 1] - ROW_SCORES[low])


def unseen_numbers(game: CardGame, p: int) -> list[list[int]]:
    """Number cards ``p`` has not seen (deck, removed, other hands), by colour and value."""
    counts = [list(row) for row in _FULL]
    seen: list[str] = list(game.hands[p])
    for pile in game.piles:
        seen += pile
    for rows in game.rows:
        for row in rows:
            seen += row
    for card in seen:
        kind, ci, value = _INFO[card]
        if kind == NUMBER:
            counts[ci][value] -= 1
    return counts


def evaluate(
    game: CardGame,
    p: int,
    unseen: list[list[int]],
    draw_rate: float,
    hand: list[str] | None = None,
    memo: dict[tuple[int, ...], float | None] | None = None,
) -> float:
    """What the position is worth to ``p``: the score with open rows at their likely length.
    ``hand``: value the position as if ``p`` held these cards (a discard or a draw changes
    nothing else that counts here, so the greedy bot need not copy the game to try one).
    ``memo``: the colours' terms already worked out in this decision, by the row and the hand's
    cards of the colour (the actions of one decision change one colour or two; the deck, and
    so the unseen cards and the chances, stay as they are)."""
    if game.phase in (END_PHASE, FINISHED):
        return float(game.player_score(p))
    if hand is None:
        hand = game.hands[p]
    turns_left = game.deck_count / game.n_players
    chance = min(HAND_CHANCE, turns_left / 8)
    by_colour: list[list[int]] = [[] for _ in range(5)]
    closings = [0] * 5
    points = 0
    by_value = [0] * 11
    pair = False  # two cards of a value whose wishing stone is still free
    free = game.free  # free[0] and free[10] are False: no stone has those values
    for card in hand:
        kind, ci, value = _INFO[card]
        if kind == CLOSING:
            closings[ci] += 1
            continue
        if kind == NUMBER:
            by_colour[ci].append(value)
        else:
            points += 1
        by_value[value] += 1
        if by_value[value] == 2 and free[value]:
            pair = True
    total = len(game.point_rows[p]) + chance * points
    stones = len(game.stones[p])
    total += wish_score(stones)
    if pair:
        total += 0.5 * chance * (wish_score(stones + 1) - wish_score(stones))
    rows, last, dirs, closed = game.rows[p], game.last[p], game.dirs[p], game.closed[p]
    for ci in range(5):
        values = by_colour[ci]
        key = (ci, closings[ci], len(rows[ci]), last[ci], dirs[ci], closed[ci], *values)
        if memo is not None and key in memo:
            term = memo[key]
        else:
            term = _row_term(values, *key[1:6], unseen[ci], chance, draw_rate)
            if memo is not None:
                memo[key] = term
        if term is not None:
            total += term
    return total


def _row_term(
    values: list[int],
    closings: int,
    length: int,
    last: int,
    direction: int,
    closed: int,
    cards_left: list[int],
    chance: float,
    draw_rate: float,
) -> float | None:
    """One colour's part of ``evaluate`` (None: no row and no card to start one): the row at
    the length it may reach with the hand's ``values`` and ``closings`` of that colour."""
    started = length > 0
    if closed:
        return _row_value(length + chance * min(closings, 2 - closed))
    if started:
        options = (direction,) if direction else (ASCENDING, DESCENDING)
        start = last
    else:
        if not values:
            return None
        # start from the hand's extreme card, in the direction that keeps the most room
        low, high = min(values), max(values)
        options = (ASCENDING,) if 10 - low >= high else (DESCENDING,)
        start = low if options[0] == ASCENDING else high
        length = 1
        values = list(values)
        values.remove(start)
    best = -99.0
    for option in options:
        # the cards that fit (slices, not a test per value: this is the search's hot loop)
        if option == ASCENDING:
            in_hand = len([v for v in values if v >= start])
            to_draw = sum(cards_left[start:])
        else:
            in_hand = len([v for v in values if v <= start])
            to_draw = sum(cards_left[: start + 1])
        expect = length + chance * (in_hand + min(closings, 1))
        expect += DRAWN_FIT * draw_rate * to_draw
        best = max(best, _row_value(expect))
    return best if started else UNSTARTED_SHARE * max(0.0, chance * best)


def greedy_action(game: Game, rng: random.Random) -> str:
    """The legal action whose result ``evaluate`` values highest (ties broken by ``rng``)."""
    assert isinstance(game, CardGame)
    legal = game.legal()
    if len(legal) == 1:
        return legal[0]
    if game.phase == END_PHASE:
        return _end_phase_action(game, game.current, legal, rng)
    best_value, best = -1e9, []
    for value, action in _play_values(game, legal):
        if value > best_value + 1e-9:
            best_value, best = value, [action]
        elif value > best_value - 1e-9:
            best.append(action)
    return rng.choice(best)


def scored_actions(game: Game) -> list[tuple[float, str]]:
    """Every legal action with the value ``greedy_action`` gives it (the search bot's prior)."""
    assert isinstance(game, CardGame)
    legal = game.legal()
    if game.phase == END_PHASE:
        base = game.player_score(game.current)
        scored = []
        for action in legal:
            if action == "done":
                scored.append((0.0, action))
                continue
            trial = game.copy()
            trial.apply(action)
            scored.append((float(trial.player_score(game.current) - base), action))
        return scored
    return _play_values(game, legal)


def _play_values(game: CardGame, legal: list[str]) -> list[tuple[float, str]]:
    """Each legal action of the play or draw phase with the value of its result."""
    p = game.current
    unseen = unseen_numbers(game, p)
    hidden = sum(sum(row) for row in unseen) + 1
    draw_rate = game.deck_count / hidden / game.n_players
    hand = game.hands[p]
    play = game.phase == PLAY_PHASE
    memo: dict[tuple[int, ...], float | None] = {}
    base = evaluate(game, p, unseen, draw_rate, None, memo)
    scored = []
    for action in legal:
        if action == "draw deck":
            value = base + DECK_CARD_VALUE
        elif (parsed := ACTIONS[action])[0] == DISCARD:  # the hand less the card, a draw owed
            kept = hand[:]
            kept.remove(parsed[1])
            value = evaluate(game, p, unseen, draw_rate, kept, memo) + DECK_CARD_VALUE
        elif not play:  # a draw from a pile: the hand and its top card (the deck is not empty)
            drawn = [*hand, game.piles[parsed[3]][-1]]
            value = evaluate(game, p, unseen, draw_rate, drawn, memo)
        else:
            trial = game.copy()
            trial.apply(action)
            value = evaluate(trial, p, unseen, draw_rate, None, memo)
            if play:
                if trial.phase == DRAW_PHASE:  # the cards still to draw (two after a wish)
                    value += DECK_CARD_VALUE * trial.draws_left
                else:
                    value += _ending_bonus(trial, p)
        scored.append((value, action))
    return scored


def _ending_bonus(game: CardGame, p: int) -> float:
    """Ending the game pays when ahead (the others' last lays allowed for), else it costs."""
    scores = game.scores()
    others = max(s for i, s in enumerate(scores) if i != p)
    return END_WEIGHT if scores[p] >= others + END_MARGIN else -END_WEIGHT


def _end_phase_action(game: CardGame, p: int, legal: list[str], rng: random.Random) -> str:
    """The last lays: the one that adds most to the score (every lay adds at least 1)."""
    base = game.player_score(p)
    best_gain, best = 0, ["done"]
    for action in legal:
        if action == "done":
            continue
        trial = game.copy()
        trial.apply(action)
        gain = trial.player_score(p) - base
        if gain > best_gain:
            best_gain, best = gain, [action]
        elif gain == best_gain:
            best.append(action)
    return rng.choice(best)


HEURISTICS[CardGame.name] = greedy_action
SCORERS[CardGame.name] = scored_actions

__all__ = ["evaluate", "greedy_action", "scored_actions", "unseen_numbers"]
