"""The strong bot: determinized rollouts over the hidden cards, the greedy bot as playout policy.

From its player's view alone (records.md ``--as N``), it deals the cards it cannot see at random
(games.engine.determinize) many times; in each such world it tries its best few candidate
actions (ranked by the greedy heuristic), lets greedy bots play on for every seat, and values
the result as its own score less the best other score (plus a bonus for a win when the game
ended). The candidate with the best mean over the worlds is played. Every candidate meets the
same worlds and the same playout seeds (common random numbers), so the comparison is fair even
with few worlds.

Determinism: the worlds and the playouts are drawn from the bot's seed, so with a budget that
counts playouts only (``seconds=None``) one view and one seed always give one action. A time
budget stops earlier on a slow machine; the site's default has both.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .base import Game
from .board import BoardGame
from .board_layouts import END_STONE, STONE_VALUES
from .bots import NEVER, GreedyBot, scorer
from .cards import ASCENDING, COLOUR_INDEX, DESCENDING
from .determinize import player_view, sample, viewer_of

#: the share of the steps its fitting hand cards promise that a figure is valued at
POTENTIAL_SHARE = 0.7
#: how much the others' mean value counts against the own at a 3- or 4-player cut-off (the
#: bench: 0 did best at 4-player card tables, see docs/bots.md)
OTHERS_WEIGHT = 0.0
#: a playout that has not ended after this many actions is cut off and valued as it stands:
#: bots that draw back from the piles what they discard need not ever empty the deck
MAX_PLAYOUT_ACTIONS = 600
#: added to the score margin of a playout that reached the end: a win is what counts
WIN_BONUS = 6.0
#: at 3-4 player card tables the margin to the best other says less about winning, so a win
#: counts for more (15 against 6: the paired tables of docs/bots.md)
PLAYERS_WIN_BONUS: dict[tuple[str, int], float] = {
    ("keltis-cards", 3): 15.0,
    ("keltis-cards", 4): 15.0,
}


@dataclass(frozen=True)
class Budget:
    """How much the strong bot thinks per move."""

    #: worlds (deals of the hidden cards) to try, each with every candidate; None takes the
    #: table's default (PLAYERS_PLAYOUTS, else DEFAULT_PLAYOUTS)
    playouts: int | None = None
    #: limit in seconds of the searching thread's CPU time (other work on the machine makes the
    #: bot slower, not weaker; a slower processor plays fewer worlds where it binds), or None to
    #: count playouts only (reproducible)
    seconds: float | None = 0.7
    #: candidate actions (the greedy heuristic's best) compared by the rollouts; None takes
    #: each game's default (GAME_CANDIDATES)
    candidates: int | None = None
    #: playouts stop at the bot's ``horizon``-th next turn and are valued there; 0: play to the
    #: end. None takes each game's default (GAME_HORIZON)
    horizon: int | None = None
    #: another candidate replaces the heuristic's choice only when its mean gain over the same
    #: worlds exceeds this many standard errors: few noisy playouts do not overrule it
    confidence: float = 1.0
    #: with fewer worlds than this the heuristic's choice stands: a standard error from a
    #: handful of playouts is itself too noisy (4-player card games fit only a few)
    min_worlds: int = 8
    #: with at most this many deck cards left per player, playouts run to the end whatever the
    #: horizon: the last turns decide the game and are cheap to play out. None takes the
    #: table's default (PLAYERS_FINISH_WITHIN, else 3)
    finish_within: int | None = None


#: the card game's playouts look two rounds ahead and value the position with the heuristic
#: (until the deck runs low: Budget.finish_within); the board game's play to the end. At 3-4
#: player card tables two rounds pay only with twice the worlds (PLAYERS_PLAYOUTS; alone,
#: each did no better, see docs/bots.md)
GAME_HORIZON: dict[str, int | None] = {BoardGame.name: None, "keltis-cards": 2}
#: worlds per move, unless the time budget stops earlier
DEFAULT_PLAYOUTS = 24
#: 3-4 player card tables: 48 (with two rounds ahead, paired against one round and 24 worlds:
#: margin +1.1 ± 0.6 and own score +1.6 ± 0.5 on 79 4-player tables, +1.2 ± 0.5 and +1.2 ±
#: 0.4 on 150 3-player tables, docs/bots.md); the first half's moves otherwise leave most of
#: the time budget unused
PLAYERS_PLAYOUTS: dict[tuple[str, int], int] = {("keltis-cards", 3): 48, ("keltis-cards", 4): 48}
#: at 3-4 player card tables the playouts run to the end from further out: 8 deck cards a
#: player (the bench's 4-player tables, docs/bots.md); else 3
PLAYERS_FINISH_WITHIN: dict[tuple[str, int], int] = {("keltis-cards", 3): 8, ("keltis-cards", 4): 8}
#: more candidates cost more playouts each; the card game's are cheaper (they stop two rounds
#: ahead while the board game's play to the end)
GAME_CANDIDATES: dict[str, int] = {BoardGame.name: 3, "keltis-cards": 4}

DEFAULT_BUDGET = Budget()
#: post-game analysis: every move of a player is looked at, so fewer worlds per move, and no
#: clock: an analysis does not depend on how busy the worker was, and the same game always
#: gets the same one
ANALYSIS_BUDGET = Budget(playouts=8, seconds=None)


@dataclass(frozen=True)
class Judgement:
    """The search's verdict on one position: the best action and every candidate's value."""

    best: str
    values: dict[str, float]
    worlds: int

    def cost(self, action: str) -> float | None:
        """How much worse than the best ``action`` looked (0 for the best), None if unvalued."""
        if action not in self.values:
            return None
        return max(0.0, self.values[self.best] - self.values[action])


class StrongBot:
    """Determinized rollouts with greedy playouts; see the module docstring."""

    kind = "strong"

    def __init__(self, seed: int | None = None, budget: Budget = DEFAULT_BUDGET) -> None:
        self.seed = random.Random(seed).getrandbits(32) if seed is not None else 0
        self.budget = budget

    def choose(self, game: Game) -> str:
        """Only the player's view of ``game`` is used: the hidden cards stay unseen."""
        return self.choose_view(player_view(game))

    def choose_view(self, view: dict[str, Any]) -> str:
        return judge(view, self.seed, self.budget).best


def judge(view: dict[str, Any], seed: int, budget: Budget, include: str | None = None) -> Judgement:
    """Search the position of ``view`` (whose player is to move). ``include``: an action that
    is valued even when the heuristic would not make it a candidate (analysis of a move)."""
    start = time.thread_time()
    legal = list(view["legal"])
    if not legal:
        raise ValueError("the view's player is not to move")
    if len(legal) == 1 and include in (None, legal[0]):
        return Judgement(legal[0], {legal[0]: 0.0}, 0)
    me = viewer_of(view)
    rng = random.Random(seed)
    first = sample(view, random.Random(rng.getrandbits(64)))
    limit = budget.candidates or GAME_CANDIDATES.get(view["game"], 3)
    candidates = _candidates(first, limit, include)
    if len(candidates) == 1:
        return Judgement(candidates[0], {candidates[0]: 0.0}, 0)
    horizon = budget.horizon
    if horizon is None:
        horizon = GAME_HORIZON[view["game"]]
    finish = budget.finish_within
    if finish is None:
        finish = PLAYERS_FINISH_WITHIN.get((view["game"], first.n_players), 3)
    if not horizon or first.deck_count <= finish * first.n_players:
        horizon = None
    playouts = budget.playouts
    if playouts is None:
        playouts = PLAYERS_PLAYOUTS.get((view["game"], first.n_players), DEFAULT_PLAYOUTS)
    results: dict[str, list[float]] = {action: [] for action in candidates}
    worlds = 0
    world = first
    while worlds < playouts:
        playout_seed = rng.getrandbits(32)
        for action in candidates:
            results[action].append(_playout(world, action, me, playout_seed, horizon))
        worlds += 1
        if budget.seconds is not None:
            spent = time.thread_time() - start
            if spent + spent / worlds > budget.seconds:
                break
        world = sample(view, random.Random(rng.getrandbits(64)))
    values = {action: sum(vals) / worlds for action, vals in results.items()}
    best = _pick(candidates, results, budget.confidence, budget.min_worlds)
    return Judgement(best, values, worlds)


def _pick(
    candidates: list[str], results: dict[str, list[float]], confidence: float, min_worlds: int
) -> str:
    """The heuristic's choice (the first candidate) unless another did better over the same
    worlds (at least ``min_worlds``) by more than ``confidence`` standard errors of the paired
    difference."""
    base = results[candidates[0]]
    n = len(base)
    best, best_gain = candidates[0], 0.0
    if n < min_worlds:
        return best
    for action in candidates[1:]:
        diffs = [a - b for a, b in zip(results[action], base, strict=True)]
        mean = sum(diffs) / n
        if mean <= best_gain:
            continue
        if n > 1:
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean <= confidence * (var / n) ** 0.5:
                continue
        best, best_gain = action, mean
    return best


def _candidates(game: Game, limit: int, include: str | None) -> list[str]:
    """The heuristic's best ``limit`` actions, best first (stable on ties), with ``include``;
    never one the heuristic rules out (``NEVER``) while another is legal."""
    scored = scorer(game.name)(game)
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    if scored[order[0]][0] != NEVER:
        order = [i for i in order if scored[i][0] != NEVER]
    chosen = [scored[i][1] for i in order[: max(1, limit)]]
    if include is not None and include not in chosen:
        chosen.append(include)
    return chosen


def _playout(world: Game, action: str, me: int, seed: int, horizon: int | None) -> float:
    """Play ``action`` in a copy of ``world``, then greedy bots for every seat, up to the end or
    to ``me``'s ``horizon``-th next turn; the value for ``me``. The game's own loop
    (``apply_all``) applies the bots' choices, as ``play_out`` has it do."""
    game = world.copy()
    game.apply(action)
    bots = [GreedyBot(seed + i) for i in range(game.n_players)]
    game.apply_all(_greedy_turns(game, bots, me, horizon))
    return _margin(game, me, finished=game.finished)


def _greedy_turns(game: Game, bots: list[GreedyBot], me: int, horizon: int | None) -> Iterator[str]:
    """The bots' actions until the game ends, ``me``'s ``horizon``-th next turn starts, or
    ``MAX_PLAYOUT_ACTIONS``."""
    turns = 0
    was_me = True
    for _ in range(MAX_PLAYOUT_ACTIONS):
        if game.finished:
            return
        to_move = game.to_move
        assert to_move is not None
        if horizon is not None and to_move == me and not was_me and _at_turn_start(game):
            turns += 1
            if turns >= horizon:
                return
        was_me = to_move == me
        yield bots[to_move].choose(game)


def _at_turn_start(game: Game) -> bool:
    return getattr(game, "phase_name", "play") == "play"


def _margin(game: Game, me: int, finished: bool) -> float:
    """Own value less the best other one; a finished game adds the win bonus."""
    if finished:
        values = [float(s) for s in game.scores()]
    else:
        values = [_static_value(game, p) for p in range(game.n_players)]
    others = [v for p, v in enumerate(values) if p != me]
    if not finished and len(others) > 1:
        # a heuristic value of a position mid-game: against several players, chasing down the
        # one who looks best is noise more than play, so the others count on average
        return values[me] - OTHERS_WEIGHT * sum(others) / len(others)
    margin = values[me] - max(others)
    if finished:
        bonus = PLAYERS_WIN_BONUS.get((game.name, game.n_players), WIN_BONUS)
        margin += bonus if margin > 0 else bonus / 2 if margin == 0 else 0.0
    return margin


def _static_value(game: Game, p: int) -> float:
    """A position's worth to ``p`` before the end: the card game's heuristic valuation, the
    board game's score as if it ended now."""
    if isinstance(game, BoardGame):
        return _board_value(game, p)
    from .cardgame_greedy import evaluate, unseen_numbers

    unseen = unseen_numbers(game, p)  # type: ignore[arg-type]
    hidden = sum(sum(row) for row in unseen) + 1
    draw_rate = game.deck_count / hidden / game.n_players  # type: ignore[attr-defined]
    return evaluate(game, p, unseen, draw_rate)  # type: ignore[arg-type]


def _board_value(game: BoardGame, p: int) -> float:
    """The board game's score as if it ended now, plus the steps the figures may still take
    with the fitting cards in hand (as many as turns are left), at POTENTIAL_SHARE."""
    total = float(game.player_score(p))
    turns_left = game.deck_count / game.n_players
    pos, last, dirs, big = game.pos[p], game.last[p], game.dirs[p], game.big[p]
    fitting = [0] * 5
    for card in game.hands[p]:
        ci = COLOUR_INDEX[card[0]]
        value = int(card[1:])
        d = dirs[ci]
        if 0 < pos[ci] < END_STONE and not (
            (d == ASCENDING and value < last[ci]) or (d == DESCENDING and value > last[ci])
        ):
            fitting[ci] += 1
    for ci in range(5):
        if fitting[ci]:
            stone = pos[ci]
            steps = min(fitting[ci], END_STONE - stone, int(turns_left))
            gain = STONE_VALUES[stone + steps] - STONE_VALUES[stone]
            total += POTENTIAL_SHARE * gain * (2 if big == ci else 1)
    return total


__all__ = [
    "ANALYSIS_BUDGET",
    "DEFAULT_BUDGET",
    "Budget",
    "Judgement",
    "StrongBot",
    "judge",
]
