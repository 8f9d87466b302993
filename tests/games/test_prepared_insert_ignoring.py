"""``keltis_site.prepared.PreparedInsertIgnoring``, the outbox's insert on every action: the
rows ``bulk_create(ignore_conflicts=True)`` would write, a key already queued left as it was."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from keltis_site.prepared import PreparedInsertIgnoring
from notifications import outbox
from notifications.models import Notification

pytestmark = pytest.mark.django_db


def _row(user: Any, game: Any, key: str, **fields: Any) -> Notification:
    return Notification(key=key, channel="email", kind="turn", user=user, game=game, **fields)


def test_inserts_new_rows_and_skips_a_key_already_queued(make_user: Any) -> None:
    user = make_user("ana")
    game = services.game_create(creator=user, kind="keltis", player_count=2, bots=["random"])
    Notification.objects.all().delete()
    insert = PreparedInsertIgnoring(Notification)
    insert.run([_row(user, game, "a", seq=1), _row(user, game, "b", seq=2)])
    insert.run([_row(user, game, "b", seq=9), _row(user, game, "c", seq=3)])
    stored = dict(Notification.objects.values_list("key", "seq"))
    assert stored == {"a": 1, "b": 2, "c": 3}  # "b" kept its first row
    row = Notification.objects.get(key="c")
    assert (row.user_id, row.game_id, row.status, row.attempts) == (user.pk, game.pk, "queued", 0)
    assert row.next_attempt_at is not None and row.created_at is not None


def test_many_rows_and_none(make_user: Any) -> None:
    user = make_user("bo")
    game = services.game_create(creator=user, kind="keltis", player_count=2, bots=["random"])
    Notification.objects.all().delete()
    insert = PreparedInsertIgnoring(Notification)
    insert.run([])
    insert.run([_row(user, game, f"k{i}", seq=i) for i in range(150)])  # SQLite: several batches
    assert Notification.objects.count() == 150


def test_the_outbox_insert_fills_a_column_with_a_database_default(make_user: Any) -> None:
    user = make_user("cy")
    game = services.game_create(creator=user, kind="keltis", player_count=2, bots=["random"])
    Notification.objects.all().delete()
    outbox._insert([Notification(key="d", kind="turn", user=user, game=game)])
    assert Notification.objects.get(key="d").channel == "email"
