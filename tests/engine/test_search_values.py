"""How the strong bot values a playout that reached the end (games.engine.search._margin)."""

from __future__ import annotations

import pytest

from games.engine import GAMES
from games.engine.base import Game
from games.engine.bots import GreedyBot, play_out
from games.engine.search import PLAYERS_WIN_BONUS, WIN_BONUS, _margin


def _finished(name: str, players: int, seed: int) -> Game:
    game = GAMES[name].new(players, {"seed": seed})
    return play_out(game, [GreedyBot(seed + p) for p in range(players)])


@pytest.mark.parametrize(
    ("name", "players", "bonus"),
    [
        ("keltis-cards", 2, WIN_BONUS),
        ("keltis-cards", 4, PLAYERS_WIN_BONUS[("keltis-cards", 4)]),
        ("keltis", 4, WIN_BONUS),
    ],
)
def test_a_win_adds_the_bonus_of_its_table(name: str, players: int, bonus: float) -> None:
    """The winner's value is its lead plus the table's bonus; a loser's is its (negative)
    margin alone. Card tables of 3-4 count a win for more than a 2-player game does."""
    for seed in range(30):
        game = _finished(name, players, seed)
        scores = game.scores()
        ranked = sorted(scores, reverse=True)
        if ranked[0] == ranked[1]:
            continue  # a shared first place: take a game with one winner
        winner = scores.index(ranked[0])
        loser = scores.index(ranked[-1])
        assert _margin(game, winner, finished=True) == ranked[0] - ranked[1] + bonus
        assert _margin(game, loser, finished=True) == ranked[-1] - ranked[0]
        return
    pytest.fail("no game with a single winner in 30 seeds")


def test_the_card_tables_bonus_is_larger_than_a_duels() -> None:
    assert PLAYERS_WIN_BONUS[("keltis-cards", 4)] > WIN_BONUS
    assert ("keltis", 4) not in PLAYERS_WIN_BONUS
