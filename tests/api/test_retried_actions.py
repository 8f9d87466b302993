"""The API answers a move whose transaction committed as applied: the same call sent again,
or a connection broken after the commit (tests/games/test_action_retry.py for the pages)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError

from games import services
from games.models import Event
from games.services import game_create, game_join
from games.state import engine_state


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_a_retried_or_broken_move_as_applied(
    make_user: Any, api_for: Any, monkeypatch: Any
) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    player = (anna, bela)[game.to_move]
    action = engine_state(game).legal()[0]
    api = api_for(player)
    url = f"/api/v1/games/{game.pk}/actions/"
    submit = services.action_submit

    def committed_then_broken(**kwargs: Any) -> Any:
        submit(**kwargs)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(services, "action_submit", committed_then_broken)
    broken = api.post(url, {"action": action, "seq": 0})
    monkeypatch.setattr(services, "action_submit", submit)
    again = api.post(url, {"action": action, "seq": 0})
    assert (broken.status_code, again.status_code) == (200, 200)
    assert broken.json()["applied"] == again.json()["applied"] == [action]
    assert Event.objects.filter(game=game, seq=1).count() == 1
    stale = api.post(url, {"action": engine_state(game).legal()[1], "seq": 0})
    assert stale.status_code == 409 and stale.json()["code"] == "stale_sequence"
