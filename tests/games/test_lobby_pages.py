"""The lobby in pages, and one creator unable to flood it: at most LOBBY_GAMES_PER_CREATOR of
one player's open games on the lobby (their newest), the rest behind a link to all of
theirs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from games.services import game_create

pytestmark = pytest.mark.django_db


def open_game(creator: Any, minutes_ago: int) -> Game:
    game = game_create(creator=creator, kind="keltis", player_count=2)
    Game.objects.filter(pk=game.pk).update(
        created_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    return game


def shown(response: Any) -> list[int]:
    return [row.game.pk for row in response.context["open_games"]]


def test_one_flooder_cannot_push_the_others_out_of_the_lobby(
    client: Client, make_user: Any, settings: Any
) -> None:
    """25 open games made after everyone else's (the limit raised as it was before it
    existed): the lobby's first page still shows every other player's game."""
    settings.MAX_OPEN_GAMES_PER_PLAYER = 25
    real = [open_game(make_user(), minutes_ago=60 + i) for i in range(3)]
    flooder = make_user("flo", display_name="Flo")
    flood = [open_game(flooder, minutes_ago=i) for i in range(25)]  # flood[0] is the newest

    response = client.get(reverse("lobby"))

    assert shown(response) == [flood[0].pk, flood[1].pk] + [game.pk for game in real]
    page = response.content.decode()
    more = f'href="{reverse("lobby")}?by=flo"'
    assert page.count(more) == 1 and "23 more open games by Flo" in page


def test_the_link_lists_all_of_one_creators_open_games_in_pages(
    client: Client, make_user: Any, settings: Any
) -> None:
    settings.MAX_OPEN_GAMES_PER_PLAYER = 25
    flooder = make_user("flo", display_name="Flo")
    flood = [open_game(flooder, minutes_ago=i) for i in range(25)]
    other = open_game(make_user(), minutes_ago=100)

    first = client.get(reverse("lobby"), {"by": "flo"})
    second = client.get(reverse("lobby"), {"by": "flo", "page": "2"})

    assert shown(first) == [game.pk for game in flood[:20]]
    assert shown(second) == [game.pk for game in flood[20:]]
    assert other.pk not in shown(first) + shown(second)
    assert "Open games by Flo" in first.content.decode()
    assert 'href="/games/?by=flo&amp;page=2"' in first.content.decode()
    assert client.get(reverse("lobby"), {"by": "nobody"}).status_code == 404
    empty = client.get(reverse("lobby"), {"by": make_user("idle").username})
    assert "idle has no open game right now." in empty.content.decode()


def test_one_player_with_two_open_games_gets_no_link(client: Client, make_user: Any) -> None:
    anna = make_user("anna")
    games = [open_game(anna, minutes_ago=i) for i in range(2)]
    response = client.get(reverse("lobby"))
    assert shown(response) == [game.pk for game in games]
    assert "?by=" not in response.content.decode()


def test_the_lobby_shows_open_games_twenty_to_a_page(client: Client, make_user: Any) -> None:
    games = [open_game(make_user(), minutes_ago=i) for i in range(45)]
    newest_first = [game.pk for game in games]

    first = client.get(reverse("lobby"))
    third = client.get(reverse("lobby"), {"page": "3"})

    assert shown(first) == newest_first[:20]
    assert shown(third) == newest_first[40:]
    page = first.content.decode()
    assert "Page 1 of 3" in page and 'rel="next" href="/games/?page=2"' in page
    assert 'rel="prev"' not in page
    page = third.content.decode()
    assert "Page 3 of 3" in page and 'rel="prev" href="/games/?page=2"' in page
    assert 'rel="next"' not in page


@pytest.mark.parametrize(
    ("asked", "number"),
    [("abc", 1), ("0", 1), ("-4", 1), ("1.5", 1), ("99999", 3), ("9" * 5000, 1), ("", 1)],
)
def test_a_bad_page_number_shows_the_first_or_last_page(
    client: Client, make_user: Any, asked: str, number: int
) -> None:
    for i in range(45):
        open_game(make_user(), minutes_ago=i)

    response = client.get(reverse("lobby"), {"page": asked})

    assert response.status_code == 200
    assert response.context["pager"].page.number == number
    assert f"Page {number} of 3" in response.content.decode()


def test_a_page_of_the_lobby_costs_the_same_queries_however_many_games(
    client: Client, make_user: Any
) -> None:
    for i in range(5):
        open_game(make_user(), minutes_ago=i)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("lobby"))
    for i in range(40):
        open_game(make_user(), minutes_ago=10 + i)
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("lobby"))
    assert len(many) == len(few)


def test_the_pager_is_translated(client: Client, make_user: Any) -> None:
    for i in range(21):
        open_game(make_user(), minutes_ago=i)
    client.force_login(make_user(language="pl"))
    page = client.get(reverse("lobby")).content.decode()
    assert "Strona 1 z 2" in page and "Następna strona" in page
