"""The one step left is taken for the player: after a lay with every discard pile empty, the
deck is the only pile to draw from, and ``action_submit`` draws from it in the same
transaction, as the player's own action (source kept), whoever submitted the lay."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Event, EventSource, Game
from games.services import action_submit, game_create, game_join, only_step
from games.state import engine_state

pytestmark = pytest.mark.django_db


def running_game(make_user: Any, kind: str) -> tuple[Game, Any]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna


def a_lay(game: Game) -> str:
    """A lay after which the draw is all that is left (a lay that lands a figure on a clover
    leaves a choice first: about one deal in two hundred has one among the first lays)."""
    engine = engine_state(game)
    for action in engine.legal():
        if action.startswith("play"):
            after = engine.copy()
            after.apply(action, player=engine.to_move)
            if after.to_move == engine.to_move and after.legal() == ["draw deck"]:
                return action
    raise AssertionError("no lay of this deal leaves only the draw")


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_draw_from_the_only_pile_is_taken_for_the_player(make_user: Any, kind: str) -> None:
    game, anna = running_game(make_user, kind)
    lay = a_lay(game)
    result = action_submit(game_id=game.pk, seat=0, action=lay, expected_seq=0, user=anna)
    events = list(Event.objects.filter(game=game).order_by("seq"))
    # the piles are empty at the start: the deck was the only choice, so it was drawn from
    assert [(e.seq, e.seat, e.action, e.source) for e in events] == [
        (1, 0, lay, EventSource.PLAYER),
        (2, 0, "draw deck", EventSource.PLAYER),
    ]
    assert [e.action for e in result.automatic] == ["draw deck"]
    assert result.event.action == lay
    game.refresh_from_db()
    assert game.seq == 2 and game.to_move == 1  # the turn passed to bela
    assert result.engine.to_move == 1


def test_a_bots_lay_gets_the_same_draw_with_the_bots_source(make_user: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["random"])
    action_submit(game_id=game.pk, seat=0, action=a_lay(game), expected_seq=0, user=anna)
    game.refresh_from_db()
    lay = a_lay(game)
    action_submit(
        game_id=game.pk, seat=1, action=lay, expected_seq=game.seq, source=EventSource.BOT
    )
    last = list(Event.objects.filter(game=game, seat=1).order_by("seq"))
    assert [(e.action, e.source) for e in last][-2:] == [
        (lay, EventSource.BOT), ("draw deck", EventSource.BOT)
    ]


def test_a_real_choice_is_left_to_the_player(make_user: Any) -> None:
    game, anna = running_game(make_user, "keltis")
    discard = next(a for a in engine_state(game).legal() if a.startswith("discard"))
    result = action_submit(game_id=game.pk, seat=0, action=discard, expected_seq=0, user=anna)
    # the discarded card lies on its pile: the deck or that pile, the player chooses
    assert result.automatic == ()
    game.refresh_from_db()
    assert game.seq == 1 and game.to_move == 0
    assert len(engine_state(game).legal()) == 2


def test_a_discard_that_may_not_be_taken_back_leaves_only_the_deck(make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(
        creator=anna, kind="keltis", player_count=2, options={"no_redraw_own_discard": True}
    )
    game_join(game_id=game.pk, user=bela)
    discard = next(a for a in engine_state(game).legal() if a.startswith("discard"))
    result = action_submit(game_id=game.pk, seat=0, action=discard, expected_seq=0, user=anna)
    assert [e.action for e in result.automatic] == ["draw deck"]


def test_only_step_is_none_while_there_is_a_choice(make_user: Any) -> None:
    game, _ = running_game(make_user, "keltis")
    assert only_step(engine_state(game)) is None
