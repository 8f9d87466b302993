"""A board game made from one player's view shows that player the same view and the same
legal actions as the real game, at every step of whole random games."""

from __future__ import annotations

import random

from games.engine import game_class
from games.engine.bots import make_bot
from games.engine.determinize import from_view


def test_a_game_from_a_view_is_the_real_game_as_that_player_sees_it() -> None:
    cls = game_class("keltis")
    for seed in range(12):
        players = 2 + seed % 3
        game = cls.new(players, cls.deal(players, seed), {"no_redraw_own_discard": seed % 2 == 1})
        mover = make_bot("random", seed)
        while not game.finished:
            seat = game.to_move
            view = game.view(seat)
            made = from_view("keltis", view, random.Random(seed))
            assert made.view(seat) == view
            assert made.legal() == game.legal()
            game.apply(mover.choose(game))
