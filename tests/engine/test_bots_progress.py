"""Bots make progress: in the board game none takes back the card it discarded this turn, and
in either game a table of bots that go round in circles ends by the deck.

The rules allow it (option ``no_redraw_own_discard`` off), but the turn is then a pass, and two
bots passing in turn never end the game: the bench saw a strong and a normal bot do so in 5 of
1,000 two-player board games, and a table of bots alone (a tournament's) would play forever.
"""

from __future__ import annotations

import pytest

from games.engine import GAMES
from games.engine.board import ACTIONS, NOBODY, BoardGame
from games.engine.bots import NEVER, PROGRESS_AFTER, GreedyBot, bot_action, scorer
from games.engine.determinize import player_view
from games.engine.search import _candidates
from tests.engine.circling_bot import PileBot


def _take_back(game: BoardGame) -> str | None:
    """The legal draw of the card the player to move discarded this turn, if any."""
    if game.phase_name != "draw" or game.discarded == NOBODY:
        return None
    for action in game.legal():
        if ACTIONS[action][4] == game.discarded:
            return action
    return None


def test_neither_greedy_nor_the_search_candidates_take_back_a_discard() -> None:
    """Over 4-player greedy games (where the old heuristic took a discard back in a quarter of
    the games), every position that allowed a take-back: greedy draws something else, and the
    strong bot's candidates, as many as there are legal draws, leave it out."""
    cls = GAMES["keltis"]
    allowed = 0
    for seed in range(12):
        game = cls.new(4, {"seed": seed})
        bots = [GreedyBot(seed * 10 + p) for p in range(4)]
        while not game.finished:
            take_back = _take_back(game)
            action = bots[game.current].choose(game)
            if take_back is not None:
                allowed += 1
                assert action != take_back
                candidates = _candidates(game, len(game.legal()), None)
                assert take_back not in candidates
                assert "draw deck" in candidates
                values = {a: v for v, a in scorer(cls.name)(game)}
                assert values[take_back] == NEVER
            game.apply(action)
    assert allowed > 20


def test_a_player_may_still_take_back_a_discard() -> None:
    """The rule is the bots' own: the engine still lists the take-back for a person."""
    game = GAMES["keltis"].new(2, {"seed": 3})
    game.apply(next(a for a in game.legal() if a.startswith("discard")))
    assert _take_back(game) is not None


@pytest.mark.parametrize("name", ["keltis", "keltis-cards"])
def test_a_game_gone_round_in_circles_ends_by_the_deck(name: str) -> None:
    """Bots taking each other's discards: the deck never shrinks, until ``bot_action`` makes
    them draw from it once the game has run PROGRESS_AFTER actions; then the game ends."""
    game = GAMES[name].new(3, {"seed": 5})
    bot = PileBot()
    deck = game.deck_count
    for actions in range(PROGRESS_AFTER):
        game.apply(bot_action(bot, player_view(game), actions))
    assert not game.finished and game.deck_count >= deck - 3
    actions = PROGRESS_AFTER
    while not game.finished:
        assert actions < 2 * PROGRESS_AFTER
        game.apply(bot_action(bot, player_view(game), actions))
        actions += 1


def test_two_normal_bots_that_go_round_in_circles_end_by_the_deck() -> None:
    """Not only a made-up bot: two greedy (normal) bots in the 2-player card game of seed
    420120 (one of 500 such games) take each other's discards from some turn on and never
    draw from the deck again; through ``bot_action`` they do once the game has run long."""
    game = GAMES["keltis-cards"].new(2, {"seed": 420120})
    bots = [GreedyBot(420120 * 10 + p) for p in range(2)]
    actions = 0
    deck: dict[int, int] = {}
    while not game.finished:
        assert actions < PROGRESS_AFTER + 500
        deck[actions] = game.deck_count
        game.apply(bot_action(bots[game.current], player_view(game), actions))
        actions += 1
    assert deck[PROGRESS_AFTER // 2] == deck[PROGRESS_AFTER] > 30  # no draw from the deck since
    assert actions > PROGRESS_AFTER
