"""Each game applies actions in one loop (``apply_all``: a replay, the bots' ``play_out``) and
``apply`` passes it one action: a run of actions must end in the state, and fail with the
error, that applying them one at a time gives, and a bot asked between two actions of the
loop must see that moment's legal list, not one kept from before."""

from __future__ import annotations

import sys

import pytest

from games.engine import GAMES, IllegalAction
from games.engine.base import Game
from games.engine.bots import RandomBot, play_out
from tests.engine.test_kept_legal_lists import rebuilt


def _random_actions(cls: type[Game], players: int, seed: int) -> list[str]:
    bots = [RandomBot(seed * 7 + i) for i in range(players)]
    return play_out(cls.new(players, {"seed": seed}), bots).actions


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_run_of_actions_ends_as_one_at_a_time(name: str, players: int) -> None:
    cls = GAMES[name]
    for seed in range(3):
        actions = _random_actions(cls, players, seed)
        game = cls.new(players, {"seed": seed})
        game.apply_all(actions)
        assert game.snapshot() == rebuilt(cls, players, seed, actions).snapshot()
        assert game.legal() == []


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 4])
def test_a_run_stops_at_its_first_illegal_action_with_its_error(name: str, players: int) -> None:
    cls = GAMES[name]
    table = sorted(sys.modules[cls.__module__].ACTIONS)  # the game's well-formed actions
    actions = _random_actions(cls, players, seed=5)
    for cut in range(0, len(actions), 13):
        before = rebuilt(cls, players, 5, actions[:cut])
        legal = set(before.legal())
        for wrong in [a for a in table[cut % 29 :: 29] if a not in legal] + ["play r99", ""]:
            with pytest.raises(IllegalAction) as alone:
                before.apply(wrong)
            game = cls.new(players, {"seed": 5})
            with pytest.raises(IllegalAction) as in_run:
                game.apply_all([*actions[:cut], wrong, *actions[cut:]])
            assert type(in_run.value) is type(alone.value)
            assert (in_run.value.code, in_run.value.params) == (
                alone.value.code,
                alone.value.params,
            )
            assert game.actions == actions[:cut]
            assert game.snapshot() == before.snapshot()
            assert game.legal() == before.legal()


class _CheckingBot(RandomBot):
    """A random bot that first checks the game's legal list against a fresh game's."""

    def choose(self, game: Game) -> str:
        assert game.legal() == type(game).restore(game.snapshot()).legal()
        return super().choose(game)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bots_fed_to_the_loop_see_each_moment_s_legal_list(name: str) -> None:
    cls = GAMES[name]
    game = play_out(cls.new(3, {"seed": 11}), [_CheckingBot(i) for i in range(3)])
    assert game.finished
