"""What an intruder with database access does to a game's event log, for the tests that check
it is noticed (tests/games/test_event_chain.py, tests/games/test_integrity.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from games.models import Event, Game


@contextmanager
def raw_events() -> Iterator[Any]:
    """A cursor that may change event rows as an intruder with database access would: on
    PostgreSQL the append-only trigger is disabled for it (deferred FK checks fired first, as
    ALTER TABLE requires) and enabled again afterwards."""
    postgres = connection.vendor == "postgresql"
    with transaction.atomic(), connection.cursor() as cursor:
        if postgres:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_append_only")
        yield cursor
        if postgres:
            cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_append_only")


def set_action(game: Game, seq: int, action: str) -> None:
    """Change one stored action in place (its hash no longer matches: the chain breaks)."""
    with raw_events() as cursor:
        cursor.execute(
            "UPDATE games_event SET action = %s WHERE game_id = %s AND seq = %s",
            [action, game.pk, seq],
        )


def forge_event(game: Game, action: str, *, count_it: bool = True) -> Event:
    """Append an event no player made, through the model (so its hashes link). ``count_it``:
    move the game's count and chain head on as well, as a careful forger would, so that the
    chain verifies and only a replay shows the forgery."""
    game.refresh_from_db()
    event = Event.objects.create(
        game=game, seq=game.seq + 1, seat=game.to_move or 0, action=action
    )
    if count_it:
        Game.objects.filter(pk=game.pk).update(seq=F("seq") + 1, chain_head=event.hash)
    game.refresh_from_db()
    return event
