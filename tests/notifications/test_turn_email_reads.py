"""A turn email's reads (issue 30): the engine of its "since your last turn" replay serves the
rest of the email, so the snapshot is not read, and that engine is the one the snapshot gives
(the same hand, moves and scores for its reader); a replay of another position is not taken."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import selectors
from games.models import Snapshot
from games.state import engine_start, engine_state
from notifications import emails
from tests.notifications.conftest import play_turn

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_turn_email_uses_the_replays_engine_not_the_snapshot(table: Any, kind: str) -> None:
    t = table(kind=kind)
    for turn in range(5):
        play_turn(t, seed=turn + 1)
    game = t.refresh()
    user = t.users[game.to_move]
    reads = selectors.GameReads()
    with CaptureQueriesContext(connection) as queries:
        context = emails.turn_context(game, user, timezone.now(), reads)
    assert context is not None
    snapshot_table = Snapshot._meta.db_table
    assert not [q for q in queries.captured_queries if snapshot_table in q["sql"]]
    replayed, stored = reads.engine(game), engine_state(game)
    for seat in (game.to_move, 1 - game.to_move):
        assert replayed.view(seat) == stored.view(seat)
    assert replayed.legal() == stored.legal() and replayed.scores() == stored.scores()


def test_a_replay_of_another_position_is_not_taken(table: Any) -> None:
    t = table()
    play_turn(t, seed=1)
    game = t.refresh()
    reads = selectors.GameReads()
    reads.replayed(game, engine_start(game), 0)  # the start, not the game's position
    assert reads.engine(game).view(None) == engine_state(game).view(None)
