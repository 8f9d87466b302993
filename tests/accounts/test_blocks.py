"""Blocking a player (issue 28): from their profile, listed and undone on the settings page;
no table together (a private table's link, the lobby) and the league matchmaker seats them
apart, whoever blocked whom."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts import blocks
from accounts.models import Block
from games import private_tables
from games.models import Game
from games.services import CannotJoin, game_create, game_join
from tournaments.matchmaking import Candidate, match_tables, short_tables

pytestmark = pytest.mark.django_db


def test_a_player_blocks_and_unblocks_another_from_their_profile(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    client.force_login(anna)
    profile = reverse("player_profile", args=[bela.username])
    page = client.get(profile).content.decode()
    assert reverse("block_player", args=[bela.username]) in page
    answer = client.post(reverse("block_player", args=[bela.username]), {"action": "block"})
    assert answer.status_code == 302 and answer["Location"] == profile
    assert blocks.has_blocked(anna.pk, bela.pk) and not blocks.has_blocked(bela.pk, anna.pk)
    client.post(reverse("block_player", args=[bela.username]), {"action": "block"})  # again
    assert Block.objects.count() == 1
    settings_page = client.get(reverse("account_settings")).content.decode()
    assert bela.public_name in settings_page
    client.post(
        reverse("block_player", args=[bela.username]),
        {"action": "unblock", "next": reverse("account_settings")},
    )
    assert not Block.objects.exists()
    # no button on one's own page, and no blocking oneself
    assert reverse("block_player", args=[anna.username]) not in client.get(
        reverse("player_profile", args=[anna.username])
    ).content.decode()
    client.post(reverse("block_player", args=[anna.username]), {"action": "block"})
    assert not Block.objects.exists()


def test_blocking_needs_a_login_and_a_post(client: Client, make_user: Any) -> None:
    bela = make_user("bela")
    url = reverse("block_player", args=[bela.username])
    assert client.post(url, {"action": "block"}).status_code == 302  # to the login page
    client.force_login(make_user("anna"))
    assert client.get(url).status_code == 405
    assert not Block.objects.exists()


@pytest.mark.parametrize("who_blocks", ["seated", "joining"])
def test_no_table_together_whoever_blocked(make_user: Any, who_blocks: str) -> None:
    anna, bela, cleo = make_user(), make_user(), make_user()
    if who_blocks == "seated":
        blocks.block(blocker=anna, blocked=bela)
    else:
        blocks.block(blocker=bela, blocked=anna)
    public = game_create(creator=anna, kind="keltis", player_count=3)
    with pytest.raises(CannotJoin, match="do not play together"):
        game_join(game_id=public.pk, user=bela)
    private = game_create(creator=anna, kind="keltis", player_count=3, private=True)
    with pytest.raises(CannotJoin):
        private_tables.join_by_link(game_id=private.pk, secret=private.join_secret, user=bela)
    game_join(game_id=public.pk, user=cleo)  # others still may
    assert not Game.objects.filter(seats__user=bela).exists()


def test_the_matchmaker_seats_blocked_members_apart() -> None:
    # 1 and 2 are closest in rating, but 1 blocked 2
    members = [
        Candidate(id=1, rating=1600, apart=[2]),
        Candidate(id=2, rating=1590, apart=[1]),
        Candidate(id=3, rating=1500),
        Candidate(id=4, rating=1490),
    ]
    tables = match_tables(members, 2, 2)
    assert len(tables) == 2 and all({1, 2} - set(t) for t in tables)
    alone = match_tables(members[:2], 2, 2)
    assert alone == []  # nobody else: they wait rather than sit together
    assert sorted(short_tables(members[:2], alone, 3)) == [[1], [2]]  # each with bots
