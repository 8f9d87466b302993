"""A page's marks (the state live.js starts from) are read in SQL written by hand: the same
marks as the ORM's query they replaced, whatever the page (a game, a player's, the lobby)."""

from __future__ import annotations

from typing import Any

import pytest

from games.services import game_create, game_join
from live.selectors import orm_page_marks, page_marks

pytestmark = pytest.mark.django_db


def test_the_marks_are_the_orms_for_every_kind_of_page(make_user: Any) -> None:
    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    running = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=running.pk, user=bela)
    waiting = game_create(creator=anna, kind="keltis-cards", player_count=3)
    game_join(game_id=waiting.pk, user=cecil)
    others = game_create(creator=bela, kind="keltis", player_count=4)
    private = game_create(creator=anna, kind="keltis", player_count=3, private=True)
    game_join(game_id=private.pk, user=cecil, admitted=True)
    pages = [
        {"user_id": user, "game_id": game, "lobby": lobby}
        for user in (anna.pk, bela.pk, cecil.pk, None)
        for game in (running.pk, waiting.pk, others.pk, private.pk, 10**9, None)
        for lobby in (False, True)
    ]
    for page in pages:
        assert page_marks(**page) == orm_page_marks(**page), page
    # and they say something: the game shown counts all its seats, the lobby its open games
    marks = page_marks(user_id=cecil.pk, game_id=running.pk, lobby=True)
    assert marks[running.pk][2] == 2
    assert {waiting.pk, others.pk} <= set(marks)
    assert page_marks(user_id=None, game_id=None) == {}
    # a private table: its players' pages only, never the lobby's or a stranger's
    assert page_marks(user_id=cecil.pk, game_id=private.pk)[private.pk][2] == 2
    assert private.pk not in page_marks(user_id=bela.pk, game_id=private.pk, lobby=True)
    assert private.pk not in page_marks(user_id=None, game_id=private.pk, lobby=True)
