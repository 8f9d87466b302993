"""The outbox's model moved from games to notifications with its table and rows: migrating a
database that holds notifications keeps every one of them, readable through the new app."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import User
from notifications.models import Notification

BEFORE = [("games", "0010_game_frozen"), ("notifications", None)]
AFTER = [("games", "0011_notification_moved_to_notifications"), ("notifications", "0001_initial")]
#: the outbox became channel-neutral: the rows it held are emails
CHANNELS = [("notifications", "0003_channels")]


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    """Migrate to ``targets``; the models as they stood there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


@pytest.fixture
def latest_afterwards() -> Iterator[None]:
    """Every app back at its latest migration, for the tests that run after this one."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_afterwards")
def test_a_notification_stored_before_the_move_is_read_after_it() -> None:
    old = _migrate(BEFORE)
    old_model = old.get_model("games", "Notification")
    # the games' table as it stood at games 0010 (later migrations added columns to it)
    user = User.objects.create_user(username="anna", email="a@x.test", password=None)
    old_game = old.get_model("games", "Game")
    game = old_game.objects.create(kind="keltis", player_count=2, setup={}, created_by_id=user.pk)
    old_model.objects.create(
        key="turn:1:0:0", kind="turn", user_id=user.pk, game_id=game.pk, seat=0, seq=0
    )
    assert Notification._meta.db_table == old_model._meta.db_table
    # a database made before the move knows the model's content type under games only
    ContentType.objects.filter(app_label="notifications", model="notification").delete()
    old_type, _ = ContentType.objects.get_or_create(app_label="games", model="notification")

    new = _migrate(AFTER)
    row = new.get_model("notifications", "Notification").objects.get()
    assert (row.key, row.kind, row.user_id, row.game_id) == ("turn:1:0:0", "turn", user.pk, game.pk)
    _migrate(CHANNELS)
    # the app's own model reads it (the columns it had then: table talk added one since)
    stored = Notification.objects.only("key", "channel").get()
    assert (stored.key, stored.channel) == ("turn:1:0:0", "email")
    # its content type (and so the staff's permissions and admin log entries) moved along
    assert ContentType.objects.get(pk=old_type.pk).app_label == "notifications"
