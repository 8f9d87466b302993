"""The engine's fast paths give exactly what the plain library calls give, so that a seed deals
the same game and a random bot plays the same moves as before they were made fast."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import GAMES
from games.engine.base import shuffle
from games.engine.bots import RandomBot


@given(seed=st.integers(min_value=0, max_value=2**64), size=st.integers(min_value=0, max_value=120))
def test_shuffle_is_random_shuffle_step_for_step(seed: int, size: int) -> None:
    ours, theirs = list(range(size)), list(range(size))
    rng_ours, rng_theirs = random.Random(seed), random.Random(seed)
    shuffle(rng_ours, ours)
    rng_theirs.shuffle(theirs)
    assert ours == theirs
    assert rng_ours.random() == rng_theirs.random()  # the generators stay in step


@given(seed=st.integers(min_value=0, max_value=2**32), sizes=st.lists(st.integers(1, 40)))
def test_random_bot_chooses_as_rng_choice(seed: int, sizes: list[int]) -> None:
    class Listed:
        def __init__(self, actions: list[str]) -> None:
            self.actions = actions

        def legal(self) -> list[str]:
            return list(self.actions)

    bot, rng = RandomBot(seed), random.Random(seed)
    for size in sizes:
        actions = [f"a{i}" for i in range(size)]
        assert bot.choose(Listed(actions)) == rng.choice(actions)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_lists_equal_a_fresh_listing_and_copies_play_on_alike(
    name: str, players: int
) -> None:
    """Every step's legal list equals the list of a copy restored from a snapshot (all caches
    rebuilt), and a copy made at any step plays the rest of the game to the same end."""
    cls = GAMES[name]
    for seed in range(3):
        game = cls.new(players, {"seed": seed})
        bot = RandomBot(seed)
        copies = []
        while not game.finished:
            assert game.legal() == cls.restore(game.snapshot()).legal()
            if len(game.actions) % 50 == 0:
                copies.append((game.copy(), len(game.actions)))
            game.apply(bot.choose(game))
        for trial, done in copies:
            for action in game.actions[done:]:
                trial.apply(action)
            assert trial.snapshot() == game.snapshot()
