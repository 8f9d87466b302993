"""The board game keeps each player's legal lists between actions and mends only what an action
changed (a lay remakes only its path's lays, a clover step that does not reach the end stone
none): at every step of random games the kept list must equal the one a state that never kept
any lists (rebuilt from the same actions) makes afresh."""

from __future__ import annotations

import random

import pytest

from games.engine import GAMES
from games.engine.base import Game

#: random games rarely bring a figure to its end stone: enough of them that some do
SEEDS = 30


def rebuilt(cls: type[Game], players: int, seed: int, actions: list[str]) -> Game:
    """The game dealt from ``seed`` with ``actions`` applied one at a time."""
    game = cls.new(players, {"seed": seed})
    for action in actions:
        game.apply(action)
    return game


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_kept_legal_list_is_the_fresh_one_at_every_step(name: str, players: int) -> None:
    cls = GAMES[name]
    for seed in range(SEEDS):
        rng = random.Random(seed)
        game = cls.new(players, {"seed": seed})
        done: list[str] = []
        steps = 0
        while not game.finished:
            legal = game.legal()
            if steps % 7 == 0 or len(done) < 20:  # every step early on, then one in seven
                assert legal == rebuilt(cls, players, seed, done).legal(), (seed, done)
            action = rng.choice(legal)
            game.apply(action)
            done.append(action)
            steps += 1
        assert rebuilt(cls, players, seed, done).finished
