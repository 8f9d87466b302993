"""A game made from one player's view shows that player the same view and the same legal
actions as the real game, at every step of whole games of both kinds; and the player's own
lay or discard moves both games on alike (what follows a draw from the deck may not: the deck
was dealt anew; nor who is asked in the card game's end phase: that depends on the hands)."""

from __future__ import annotations

import random

import pytest

from games.engine import game_class
from games.engine.base import SPECTATOR
from games.engine.bots import make_bot
from games.engine.determinize import from_view

OPTION = {"keltis": "no_redraw_own_discard", "keltis-cards": "closing_may_open_row"}


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_game_from_a_view_is_the_real_game_as_that_player_sees_it(kind: str) -> None:
    cls = game_class(kind)
    for seed in range(10):
        players = 2 + seed % 3
        game = cls.new(players, cls.deal(players, seed), {OPTION[kind]: seed % 2 == 1})
        mover = make_bot("greedy" if seed % 2 else "random", seed)
        while not game.finished:
            seat = game.to_move
            view = game.view(seat)
            made = from_view(kind, view, random.Random(seed))
            assert made.view(seat) == view
            assert made.legal() == game.legal()
            action = mover.choose(game)
            game.apply(action)
            # the end phase asks whoever can still lay: that depends on the hidden hands
            ends = game.phase_name in ("end", "finished") or view["phase"] == "end"
            if action.split()[0] in ("play", "discard", "clover") and not ends:
                made.apply(action)
                assert made.view(SPECTATOR) == game.view(SPECTATOR)
