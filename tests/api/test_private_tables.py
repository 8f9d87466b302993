"""The API keeps a private table to its players, as the pages do: a stranger's read answers as
a game that does not exist, and the open games' list leaves it out."""

from __future__ import annotations

from typing import Any

import pytest

from games.services import game_create, game_join

pytestmark = pytest.mark.django_db


def test_a_private_table_is_its_players_alone(make_user: Any, api_for: Any) -> None:
    anna, bela, stranger = make_user(), make_user(), make_user()
    waiting = game_create(creator=anna, kind="keltis", player_count=3, private=True)
    game_join(game_id=waiting.pk, user=bela, admitted=True)
    url = f"/api/v1/games/{waiting.pk}/"
    assert api_for(bela).get(url).status_code == 200
    refused = api_for(stranger).get(url)
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert api_for(stranger).post(f"{url}join/").status_code == 404
    listed = [g["id"] for g in api_for(stranger).get("/api/v1/games/open/").json()]
    assert waiting.pk not in listed
