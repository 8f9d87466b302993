"""ACTION_RATE_LIMIT: past the limit an action is answered 429 and nothing is stored."""

from __future__ import annotations

import time
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games import ratelimit
from games.models import Event, Game
from games.state import engine_state
from notifications import links
from tests.games.test_play_pages import act_url, two_player_game

pytestmark = pytest.mark.django_db


#: the start of a minute soon (sessions made now are still valid then)
MINUTE = (int(time.time()) // 60 + 1) * 60


def events(game: Game) -> int:
    return Event.objects.filter(game=game).count()


def legal(game: Game) -> str:
    game.refresh_from_db()
    return engine_state(game).legal()[0]


def test_parse() -> None:
    assert ratelimit.parse("60/m") == (60, 60)
    assert ratelimit.parse("5/s") == (5, 1)
    assert ratelimit.parse("100/h") == (100, 3600)


def test_the_default_limit(settings: Any) -> None:
    assert ratelimit.parse(settings.ACTION_RATE_LIMIT) == (60, 60)


def test_the_game_page_past_the_limit_is_429_and_stores_nothing(
    client: Client, make_user: Any, settings: Any
) -> None:
    settings.ACTION_RATE_LIMIT = "3/m"
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(3):  # refused moves count too
            response = client.post(act_url(game), {"action": "draw deck", "seq": "0"})
            assert response.status_code == 303
        response = client.post(act_url(game), {"action": legal(game), "seq": "0"})
        assert response.status_code == 429
        # the site's 429 page, saying what happened to the move
        names = [t.name for t in response.templates]
        assert names[:3] == ["429.html", "_error_page.html", "base.html"]
        assert b"Too many actions in a short time: nothing was changed." in response.content
        assert events(game) == 0
    # the next window starts afresh
    with time_machine.travel(MINUTE + 60, tick=False):
        response = client.post(act_url(game), {"action": legal(game), "seq": "0"})
        assert response.status_code == 303
    assert events(game) == 1


def test_the_game_page_below_the_limit_works(
    client: Client, make_user: Any, settings: Any
) -> None:
    settings.ACTION_RATE_LIMIT = "3/m"
    game, anna, bela = two_player_game(make_user)
    client.force_login(anna)
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(2):
            client.post(act_url(game), {"action": "draw deck", "seq": "0"})
        response = client.post(act_url(game), {"action": legal(game), "seq": "0"})
        assert response.status_code == 303
        assert events(game) == 1
        # the limit is per user: the other player still has all of theirs
        other = Client()
        other.force_login(bela)
        for _ in range(3):
            assert other.post(act_url(game), {"action": "pass", "seq": "9"}).status_code == 303


def test_an_email_link_past_the_limit_is_429_and_stores_nothing(
    make_user: Any, settings: Any
) -> None:
    settings.ACTION_RATE_LIMIT = "2/m"
    game, _, _ = two_player_game(make_user)
    path = links.ActionLink(game.pk, 0, game.turn_seq, game.seq, legal(game)).path()
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(2):  # forged tokens count against the client's address
            assert Client().post(reverse("email_action", args=["forged"])).status_code == 400
        response = Client().post(path)
        assert response.status_code == 429
        assert b"nothing was changed" in response.content
        assert events(game) == 0
        # a GET only shows the confirm page, so it is not counted
        assert Client().get(path).status_code == 200


def test_an_email_link_below_the_limit_works(make_user: Any, settings: Any) -> None:
    settings.ACTION_RATE_LIMIT = "2/m"
    game, _, _ = two_player_game(make_user)
    path = links.ActionLink(game.pk, 0, game.turn_seq, game.seq, legal(game)).path()
    with time_machine.travel(MINUTE, tick=False):
        assert Client().post(reverse("email_action", args=["forged"])).status_code == 400
        assert Client().post(path).status_code == 200
    assert events(game) == 1
