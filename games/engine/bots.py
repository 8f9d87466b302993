"""Bots that choose an action for whoever is to move: for timeouts, practice and load tests.

``random`` picks uniformly among the legal actions from its own seeded generator; ``greedy``
asks the game's heuristic (registered per game name) for a sensible action.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from .base import Game

Heuristic = Callable[[Game, random.Random], str]
HEURISTICS: dict[str, Heuristic] = {}


class Bot(Protocol):
    def choose(self, game: Game) -> str:
        """A legal action for the player the game awaits."""
        ...


class RandomBot:
    """Any legal action, uniformly, from a seeded generator: reproducible for a given seed."""

    kind = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> str:
        # rng.choice(legal) step for step (the same action for the same seed), without its
        # two method calls: random games are the engine's benchmark and the search's playouts
        legal = game.legal()
        n = len(legal)
        if not n:
            raise IndexError("no legal action to choose from")
        k = n.bit_length()
        getrandbits = self.rng.getrandbits
        i = getrandbits(k)
        while i >= n:
            i = getrandbits(k)
        return legal[i]


class GreedyBot:
    """The game's own one-step heuristic; the generator only breaks ties."""

    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> str:
        return _heuristic(game.name)(game, self.rng)


def _heuristic(name: str) -> Heuristic:
    if name not in HEURISTICS:
        from . import board_greedy, cardgame_greedy  # noqa: F401  (register themselves)
    return HEURISTICS[name]


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(kind: str, seed: int | None = None) -> Bot:
    try:
        return BOTS[kind](seed)
    except KeyError:
        raise ValueError(f"unknown bot '{kind}' (known: {', '.join(sorted(BOTS))})") from None


def play_out(game: Game, bots: list[Bot], max_actions: int = 100_000) -> Game:
    """Let the bots play the game to its end (each seat its own bot); returns the game."""
    for _ in range(max_actions):
        to_move = game.to_move
        if to_move is None:
            return game
        game.apply(bots[to_move].choose(game))
    raise RuntimeError(f"the game did not end within {max_actions} actions")
