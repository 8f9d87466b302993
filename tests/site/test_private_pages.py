"""Pages that may show a player's own hand (or anything else of theirs) carry
``Cache-Control: private, no-store``: every page of a logged-in player, a game's pages whoever
asks, and the pages behind emailed links. A visitor's public pages are left cacheable."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.services import game_create, game_join
from games.state import engine_state
from notifications import links

pytestmark = pytest.mark.django_db


def directives(response: Any) -> set[str]:
    """The Cache-Control directives' names, e.g. {"private", "no-store", "max-age"}."""
    header = response.get("Cache-Control", "")
    return {part.split("=")[0].strip().lower() for part in header.split(",") if part.strip()}


def running_game(make_user: Any) -> tuple[Game, Any]:
    """A running game and the player whose turn it is (their hand and buttons on the page)."""
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, (anna, bela)[game.to_move]


def test_every_page_of_a_logged_in_player_is_private_and_not_stored(
    client: Client, make_user: Any
) -> None:
    game, player = running_game(make_user)
    client.force_login(player)
    pages = [
        reverse("game_detail", args=[game.pk]),  # the player's hand
        reverse("game_history", args=[game.pk]),
        reverse("my_games"),
        reverse("home"),
        reverse("lobby"),
        reverse("account_settings"),  # the player's address
        reverse("email_preferences"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert {"private", "no-store"} <= directives(response), url
    assert 'name="action"' in client.get(pages[0]).content.decode()  # the hand's page it is

    action = engine_state(game).legal()[0]
    moved = client.post(reverse("game_act", args=[game.pk]), {"action": action, "seq": "0"})
    assert moved.status_code == 303
    assert {"private", "no-store"} <= directives(moved)


def test_a_games_pages_are_private_for_anyone(client: Client, make_user: Any) -> None:
    game, _ = running_game(make_user)
    for url in (reverse("game_detail", args=[game.pk]), reverse("game_history", args=[game.pk])):
        response = client.get(url)
        assert response.status_code == 200, url
        assert {"private", "no-store"} <= directives(response), url


def test_the_pages_behind_emailed_links_are_private(client: Client, make_user: Any) -> None:
    game, player = running_game(make_user)
    action = engine_state(game).legal()[0]
    act = links.ActionLink(game.pk, game.to_move, game.turn_seq, game.seq, action).path()
    unsubscribe = reverse("email_unsubscribe", args=[links.unsubscribe_token(player.pk)])

    confirm = client.get(act)
    assert confirm.status_code == 200 and "Confirm" in confirm.content.decode()
    assert {"private", "no-store"} <= directives(confirm)
    assert {"private", "no-store"} <= directives(client.get(unsubscribe))


def test_a_visitors_public_pages_stay_cacheable(client: Client) -> None:
    for url in (reverse("home"), reverse("rules_index")):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "no-store" not in directives(response), url
