"""Bot accounts: turned into a bot on the settings page (a confirmed POST, never undone), they
play through the API only (the game page and emailed links refuse their moves) and are shown
as bots where their names appear."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import EmailMode
from api.bot_accounts import account_make_bot
from games.models import Event, Game
from games.services import game_create, game_join
from notifications.links import ActionLink
from tournaments.models import Rating

pytestmark = pytest.mark.django_db


def _page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_settings_page_turns_an_account_into_a_bot_once_confirmed(make_user: Any) -> None:
    robot = make_user("robot")
    page = _page(robot)
    assert page.post(reverse("api_make_bot")).status_code == 302  # not confirmed
    robot.refresh_from_db()
    assert not robot.is_bot
    page.post(reverse("api_make_bot"), {"confirm": "on"})
    robot.refresh_from_db()
    assert robot.is_bot and robot.email_mode == EmailMode.NONE
    text = page.get(reverse("api_settings")).content.decode()
    assert "bot account" in text and reverse("api_make_bot") not in text  # no way back
    assert page.get(reverse("api_settings")).status_code == 200


def test_a_bot_account_cannot_move_on_the_page_but_through_the_api(
    make_user: Any, api_for: Any
) -> None:
    robot, anna = make_user("robot"), make_user("anna")
    account_make_bot(user=robot)
    game = game_create(creator=robot, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=anna)
    game.refresh_from_db()
    assert game.to_move == 0
    seen = api_for(robot).get(f"/api/v1/games/{game.pk}/").json()
    refused = _page(robot).post(
        reverse("game_act", args=[game.pk]), {"action": seen["legal"][0], "seq": game.seq}
    )
    assert refused.status_code == 403
    link = ActionLink(game.pk, 0, game.turn_seq, game.seq, seen["legal"][0])
    by_link = Client().post(link.path())
    assert "bot account" in by_link.content.decode().lower()
    assert not Event.objects.filter(game=game).exists()
    done = api_for(robot).post(
        f"/api/v1/games/{game.pk}/actions/", {"action": seen["legal"][0], "seq": game.seq}
    )
    assert done.status_code == 200
    assert Event.objects.filter(game=game, seat=0).exists()


def test_a_bot_account_is_shown_as_a_bot(make_user: Any, api_for: Any) -> None:
    robot, anna = make_user("robot"), make_user("anna")
    account_make_bot(user=robot)
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=robot)
    page = _page(anna).get(reverse("game_detail", args=[game.pk])).content.decode()
    players = page[page.index('id="players"') :]
    start = players.index(">robot<")
    assert ">bot<" in players[start : players.index("</h3>", start)]
    anna_start = players.index(">anna<")
    assert ">bot<" not in players[anna_start : players.index("</h3>", anna_start)]
    seen = api_for(anna).get(f"/api/v1/games/{game.pk}/").json()
    assert [p["is_bot"] for p in seen["players"]] == [False, True]
    assert api_for(anna).get("/api/v1/players/robot/ratings/").json()["is_bot"] is True
    assert Game.objects.get(pk=game.pk).status == "running"
    profile = _page(anna).get(reverse("player_profile", args=["robot"])).content.decode()
    heading = profile[profile.index("<h1>") : profile.index("</h1>")]
    assert ">bot<" in heading
    Rating.objects.create(user=robot, kind="keltis", rating=1600, games=1)
    board = _page(anna).get(reverse("leaderboard", args=["keltis"])).content.decode()
    row = board[board.index(">robot<") :]
    assert ">bot<" in row[: row.index("</td>")]
