"""Bots see only their player's view (records.md ``--as N``), never the hidden cards.

The strong bot is given one view and one seed, and the real game behind the view is re-dealt
(other hands, deck and removed cards shuffled among themselves, so the view stays the same):
the action must not change. Budgets are tiny and count playouts, so the tests are reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import GAMES
from games.engine.base import Game
from games.engine.bots import LEVELS, GreedyBot, RandomBot, make_bot
from games.engine.determinize import player_view, sample, unseen_cards
from games.engine.search import Budget, StrongBot, judge

TINY = Budget(playouts=2, seconds=None, candidates=3, horizon=1, min_worlds=1)
GAME_NAMES = sorted(GAMES)


def reach(cls: type[Game], n: int, seed: int, greedy_share: float) -> Iterator[Game]:
    """Copies of every position of one game played by a mix of greedy and random bots."""
    game = cls.new(n, {"seed": seed})
    rng = random.Random(seed)
    greedy, rand = GreedyBot(seed), RandomBot(seed)
    while not game.finished:
        yield game.copy()
        bot = greedy if rng.random() < greedy_share else rand
        game.apply(bot.choose(game))


def positions_with_choice(cls: type[Game], n: int, seed: int, count: int) -> list[Game]:
    """``count`` copies of positions (spread over one game) where the mover has a choice."""
    found = [g for g in reach(cls, n, seed, 0.7) if len(g.legal()) > 1]
    step = max(1, len(found) // count)
    return found[::step][:count]


def redealt(game: Game, rng: random.Random) -> Game:
    """The same position with the cards the mover cannot see shuffled among their places."""
    me = game.to_move
    assert me is not None
    other = game.copy()
    places: list[tuple[list[str], int]] = []
    for p, hand in enumerate(other.hands):  # type: ignore[attr-defined]
        if p != me:
            places += [(hand, i) for i in range(len(hand))]
    deck = other.deck  # type: ignore[attr-defined]
    places += [(deck, i) for i in range(other.deck_pos, len(deck))]  # type: ignore[attr-defined]
    removed = other.removed  # type: ignore[attr-defined]
    places += [(removed, i) for i in range(len(removed))]
    cards = [where[i] for where, i in places]
    rng.shuffle(cards)
    for (where, i), card in zip(places, cards, strict=True):
        where[i] = card
    other._reset_caches()
    return other


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_strong_bot_chooses_the_same_whatever_the_hidden_cards(name: str, n: int) -> None:
    cls = GAMES[name]
    changed_hidden = 0
    for game in positions_with_choice(cls, n, seed=40 + n, count=3):
        view = player_view(game)
        chosen = StrongBot(7, TINY).choose(game)
        assert chosen in game.legal()
        for k in range(3):
            other = redealt(game, random.Random(k))
            assert player_view(other) == view  # the mover cannot tell the two apart
            changed_hidden += other.hands != game.hands  # type: ignore[attr-defined]
            assert StrongBot(7, TINY).choose(other) == chosen
            assert StrongBot(7, TINY).choose_view(player_view(other)) == chosen
    assert changed_hidden  # the test really moved hidden cards


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_sampled_world_shows_the_viewer_exactly_the_view(name: str, n: int) -> None:
    cls = GAMES[name]
    for game in list(reach(cls, n, seed=n, greedy_share=0.6))[::9]:
        view = player_view(game)
        me = view["state"]["viewer"]
        world = sample(view, random.Random(1))
        assert world.view(me) == view["state"]
        assert world.legal() == game.legal()
        assert sorted(world.cards_everywhere()) == sorted(cls.ALL_CARDS)
        # the same generator seed gives the same deal; another may give another
        assert sample(view, random.Random(1)).snapshot() == world.snapshot()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_viewer_has_not_seen_the_other_hands(name: str) -> None:
    game = GAMES[name].new(3, {"seed": 5})
    view = player_view(game)
    unseen = unseen_cards(GAMES[name], view["state"])
    hidden = game.hands[1] + game.hands[2] + game.deck  # type: ignore[attr-defined]
    assert sorted(unseen) == sorted(hidden)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_whole_game_from_views(name: str, level: str) -> None:
    """Each seat's bot gets only its view; the game ends with every action legal."""
    game = GAMES[name].new(2, {"seed": 11})
    bots = [make_bot(level, seed=i) for i in range(2)]
    if level == "strong":
        bots = [StrongBot(i, TINY) for i in range(2)]
    while not game.finished:
        action = bots[game.to_move].choose_view(player_view(game))
        game.apply(action)
    assert game.winners()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_greedy_from_the_view_plays_as_greedy_on_the_game(name: str) -> None:
    """The normal bot reads only the own hand and what is public: a sampled world gives it
    the action it takes on the real game."""
    for game in list(reach(GAMES[name], 3, seed=3, greedy_share=0.5))[::5]:
        assert GreedyBot(9).choose_view(player_view(game)) == GreedyBot(9).choose(game)


def test_unknown_levels_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster")


def test_a_judgement_values_an_included_move_and_its_cost() -> None:
    game = positions_with_choice(GAMES["keltis"], 2, seed=3, count=1)[0]
    view = player_view(game)
    worst = sorted(game.legal())[-1]
    verdict = judge(view, seed=1, budget=TINY, include=worst)
    assert worst in verdict.values and verdict.best in game.legal()
    assert verdict.cost(verdict.best) == 0.0
    assert verdict.cost(worst) is not None and verdict.cost(worst) >= 0.0


@settings(max_examples=25)
@given(
    name=st.sampled_from(GAME_NAMES),
    n=st.integers(min_value=2, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    where=st.floats(min_value=0.0, max_value=1.0),
    greedy_share=st.floats(min_value=0.0, max_value=1.0),
)
def test_the_strong_bot_never_plays_an_illegal_action(
    name: str, n: int, seed: int, where: float, greedy_share: float
) -> None:
    positions = list(reach(GAMES[name], n, seed, greedy_share))
    game = positions[int(where * (len(positions) - 1))]
    action = StrongBot(
        seed, Budget(playouts=1, seconds=None, candidates=3, horizon=1, min_worlds=1)
    ).choose(game)
    assert action in game.legal()
    game.apply(action)  # raises IllegalAction if it were not
