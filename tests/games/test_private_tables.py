"""Private tables: created from the form, kept out of the lobby and of strangers' eyes (page,
history, record, lists), joined by the link its players share (GET shows, only the POST
joins), the link renewed by its creator alone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import private_tables
from games.models import Game, GameStatus
from games.services import CannotJoin, game_create, game_join

pytestmark = pytest.mark.django_db


def private_table(client: Client, creator: Any, players: int = 3) -> Game:
    client.force_login(creator)
    answer = client.post(
        reverse("game_create"),
        {"kind": "keltis", "player_count": str(players), "days_per_move": "3", "private": "on"},
    )
    game = Game.objects.get(created_by=creator)
    assert answer.status_code == 302 and answer["Location"] == f"/games/{game.pk}/"
    assert game.private and game.join_secret
    return game


def link_path(game: Game) -> str:
    return reverse("private_table_join", args=[game.pk, game.join_secret])


def test_the_creator_gets_the_link_to_share_and_the_lobby_never_lists_it(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna")
    game = private_table(client, anna)
    page = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert private_tables.join_url(game) in page
    assert reverse("private_table_renew", args=[game.pk]) in page
    lobby = client.get(reverse("lobby")).content.decode()
    assert f"/games/{game.pk}/" not in lobby
    stranger = make_user("stranger")
    client.force_login(stranger)
    assert f"/games/{game.pk}/" not in client.get(reverse("lobby")).content.decode()
    with pytest.raises(CannotJoin):
        game_join(game_id=game.pk, user=stranger)


def test_strangers_see_nothing_of_a_private_table(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind="keltis", player_count=2, private=True)
    game_join(game_id=game.pk, user=bela, admitted=True)
    pages = [
        reverse("game_detail", args=[game.pk]),
        reverse("game_history", args=[game.pk]),
        reverse("game_export", args=[game.pk]),
    ]
    client.force_login(make_user("stranger"))
    assert [client.get(url).status_code for url in pages] == [404, 404, 404]
    profile = client.get(reverse("player_profile", args=[anna.username])).content.decode()
    assert f"/games/{game.pk}/" not in profile  # nor on its player's profile
    client.logout()
    assert [client.get(url).status_code for url in pages] == [404, 404, 404]
    profile = client.get(reverse("player_profile", args=[anna.username])).content.decode()
    assert f"/games/{game.pk}/" not in profile
    client.force_login(bela)  # a player of it sees it, and on the other's profile too
    assert client.get(pages[0]).status_code == 200
    profile = client.get(reverse("player_profile", args=[anna.username])).content.decode()
    assert f"/games/{game.pk}/" in profile


def test_the_link_asks_before_it_seats_and_seats_only_on_the_post(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna")
    game = private_table(client, anna, players=2)
    client.logout()
    to_login = client.get(link_path(game))
    assert to_login.status_code == 302 and "next=" in to_login["Location"]
    bela = make_user("bela")
    client.force_login(bela)
    asked = client.get(link_path(game))
    assert asked.status_code == 200 and 'method="post"' in asked.content.decode()
    assert not game.seats.filter(user=bela).exists()  # a GET changes nothing
    joined = client.post(link_path(game))
    assert joined.status_code == 302 and joined["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert client.get(joined["Location"]).status_code == 200


def test_a_wrong_or_renewed_link_changes_nothing_and_says_why(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = private_table(client, anna)
    old = link_path(game)
    client.force_login(bela)
    assert client.post(reverse("private_table_renew", args=[game.pk])).status_code == 303
    game.refresh_from_db()
    assert reverse("private_table_join", args=[game.pk, game.join_secret]) == old  # not theirs
    client.force_login(anna)
    client.post(reverse("private_table_renew", args=[game.pk]))
    game.refresh_from_db()
    assert link_path(game) != old
    client.force_login(bela)
    refused = client.post(old)
    assert refused.status_code == 404
    assert "it may have been renewed by the table&#x27;s creator" in refused.content.decode()
    forged = reverse("private_table_join", args=[game.pk, "x" * 32])
    assert client.get(forged).status_code == 404
    assert not game.seats.filter(user=bela).exists()
    assert client.post(link_path(game)).status_code == 302
    assert game.seats.filter(user=bela).exists()


def test_the_create_page_offers_a_private_table(client: Client, make_user: Any) -> None:
    client.force_login(make_user())
    page = client.get(reverse("game_create")).content.decode()
    assert re.search(r'<input type="checkbox" name="private"', page)
