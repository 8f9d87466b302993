"""Hidden cards never show in an answer: the cards a player may not see (the other hands, the
deck order, the removed cards) are dealt anew in the stored state, and every answer to that
player is byte-identical to the one before."""

from __future__ import annotations

import random
from typing import Any

import pytest
import time_machine

from games.engine.bots import make_bot
from games.models import Game, Snapshot
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db


def _reshuffle_hidden_from(game: Game, viewer: int | None) -> None:
    """Deal again every card ``viewer`` (a seat, or None: a visitor) may not see."""
    snapshot = Snapshot.objects.get(game=game)
    state = snapshot.data["state"]
    hidden_hands = [p for p in range(len(state["hands"])) if p != viewer]
    pool = [card for p in hidden_hands for card in state["hands"][p]]
    deck_rest = state["deck"][state["deck_pos"] :]
    pool += deck_rest + state["removed"]
    before = sorted(pool)
    random.Random(len(pool)).shuffle(pool)
    for p in hidden_hands:
        size = len(state["hands"][p])
        state["hands"][p], pool = pool[:size], pool[size:]
    state["deck"] = state["deck"][: state["deck_pos"]] + pool[: len(deck_rest)]
    state["removed"] = pool[len(deck_rest) :]
    assert (
        sorted(
            [c for p in hidden_hands for c in state["hands"][p]]
            + state["deck"][state["deck_pos"] :]
            + state["removed"]
        )
        == before
    )
    Snapshot.objects.filter(game=game).update(data=snapshot.data)


def _answers(api: Any, game_id: int) -> list[bytes]:
    paths = [
        "/api/v1/me/", "/api/v1/games/", "/api/v1/games/open/", f"/api/v1/games/{game_id}/",
        f"/api/v1/games/{game_id}/record/", "/api/v1/leaderboards/keltis/",
        "/api/v1/leaderboards/keltis-cards/",
    ]  # fmt: skip
    return [api.get(path).content for path in paths]


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_every_answer_to_every_other_player_is_byte_identical(
    kind: str, make_user: Any, api_for: Any
) -> None:
    with time_machine.travel("2026-11-02 10:00:00+00:00", tick=False):
        anna, bela, csilla, dora = (make_user(n) for n in ("anna", "bela", "csilla", "dora"))
        game = game_create(creator=anna, kind=kind, player_count=3)
        game_join(game_id=game.pk, user=bela)
        game_join(game_id=game.pk, user=csilla)
        game.refresh_from_db()
        bot = make_bot("random", 5)
        for _ in range(15):  # a few turns in, piles and rows laid
            game.refresh_from_db()
            engine = engine_state(game)
            action_submit(
                game_id=game.pk, seat=engine.to_move, action=bot.choose(engine),
                expected_seq=game.seq,
            )  # fmt: skip
        viewers: list[tuple[Any, int | None]] = [(anna, 0), (bela, 1), (csilla, 2), (dora, None)]
        for user, seat in viewers:
            api = api_for(user, play=False)
            before = _answers(api, game.pk)
            _reshuffle_hidden_from(game, seat)
            after = _answers(api, game.pk)
            assert after == before, f"an answer to {user.username} changed"
        # the test can fail: the seat whose hand was dealt anew sees the change
        api = api_for(anna, play=False)
        before = _answers(api, game.pk)
        _reshuffle_hidden_from(game, None)
        assert _answers(api, game.pk) != before
