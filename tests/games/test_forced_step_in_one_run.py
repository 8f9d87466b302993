"""The step taken for the player (``services.only_step``) goes in the action's own run: the
game is locked and read once, the two events go in one insert, each linked to the one before,
and the snapshot and the game are written once (issue 30: it used to be a second action,
with its own savepoint, reads and writes)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.event_chain import verify_game_chain
from games.models import Event, Game
from games.services import action_submit
from games.state import engine_replay, engine_state

from .test_only_step import a_lay, running_game

pytestmark = pytest.mark.django_db


def _statements(queries: CaptureQueriesContext, start: str) -> int:
    return sum(1 for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(start))


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_lay_and_its_draw_are_one_run(make_user: Any, kind: str) -> None:
    game, anna = running_game(make_user, kind)
    lay = a_lay(game)
    with CaptureQueriesContext(connection) as queries:
        result = action_submit(game_id=game.pk, seat=0, action=lay, expected_seq=0, user=anna)
    assert [e.action for e in result.automatic] == ["draw deck"]
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "games_game"' in q["sql"]]
    assert len(reads) == 1  # the game is locked and read once
    assert _statements(queries, "SAVEPOINT") == 1  # the action's own (in the test's transaction)
    assert _statements(queries, 'INSERT INTO "GAMES_EVENT"') == 1
    assert _statements(queries, 'UPDATE "GAMES_SNAPSHOT"') == 1
    assert _statements(queries, 'UPDATE "GAMES_GAME"') == 1
    game = Game.objects.get(pk=game.pk)
    first, second = Event.objects.filter(game=game).order_by("seq")
    assert second.prev_hash == first.hash and game.chain_head == second.hash
    assert verify_game_chain(game) == []
    # the stored snapshot is the position after the draw, as a replay of the log gives it
    assert engine_state(game).snapshot() == engine_replay(game).snapshot()
