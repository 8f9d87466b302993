"""A page's marks (the state live.js starts from) are read in SQL written by hand: the same
marks as the ORM's query they replaced, whatever the page (a game, a player's, the lobby), and
with them the header's count of the games waiting for the player, the same as ``turn_count``."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game
from games.services import game_create, game_join
from live.selectors import orm_page_marks, page_marks, page_reads, turn_count
from live.templatetags import live as live_tags

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


def test_the_turn_count_is_read_with_the_marks(make_user: Any) -> None:
    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    games = []
    for kind in ("keltis", "keltis-cards", "keltis"):
        game = game_create(creator=anna, kind=kind, player_count=2)
        game_join(game_id=game.pk, user=bela)
        games.append(Game.objects.get(pk=game.pk))
    open_game = game_create(creator=cecil, kind="keltis", player_count=3)
    game_join(game_id=open_game.pk, user=anna)

    def same_everywhere() -> None:
        for user in (anna, bela, cecil):
            expected = turn_count(user_id=user.pk)
            for game_id in (None, games[0].pk, open_game.pk):
                for lobby in (False, True):
                    marks, turns = page_reads(user_id=user.pk, game_id=game_id, lobby=lobby)
                    assert turns == expected, (user, game_id, lobby)
                    assert marks == orm_page_marks(user_id=user.pk, game_id=game_id, lobby=lobby)

    same_everywhere()
    movers = {g.seats.get(index=g.to_move).user_id for g in games}
    assert any(turn_count(user_id=u.pk) for u in (anna, bela)) and movers <= {anna.pk, bela.pk}
    Game.objects.filter(pk=games[1].pk).update(frozen_at=timezone.now())  # waits for nobody
    same_everywhere()
    Game.objects.filter(pk=games[2].pk).update(status="finished", to_move=None)
    same_everywhere()
    assert page_reads(user_id=None, game_id=games[0].pk) == (
        page_marks(user_id=None, game_id=games[0].pk), 0
    )


def test_a_page_reads_the_count_once(make_user: Any, rf: Any) -> None:
    """The header's count comes with the marks of <body>: no query of its own."""
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    mover = anna if Game.objects.get(pk=game.pk).to_move == 0 else bela
    request = rf.get("/")
    request.user = mover
    with CaptureQueriesContext(connection) as queries:
        live_tags.live_attrs({"request": request, "game": None})
        assert live_tags.live_turn_count({"request": request}) == 1
    assert len(queries) == 1
