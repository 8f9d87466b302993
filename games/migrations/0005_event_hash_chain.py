"""Add the event hash chain (``Event.prev_hash``, ``Event.hash``) and link the stored events.

The columns are added nullable, every game's events are linked in seq order with the hashing of
``games.event_chain``, and the columns are then made NOT NULL. On PostgreSQL the append-only
trigger refuses the UPDATEs of the backfill, so it is disabled for them and enabled again, all
inside this migration's transaction: if anything fails, the rollback restores the trigger too.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from games.event_chain import event_hash, genesis_hash

TRIGGER = "games_event_append_only"
#: events written per UPDATE, and read per fetch
BATCH = 1000


def link_events(game_model: Any, event_model: Any, using: str = "default") -> int:
    """Set prev_hash and hash of every stored event, game by game in seq order, and return the
    number of events linked. ``game_model`` and ``event_model`` are the migration's historical
    models, whose plain managers may update. Streams: one game and one batch at a time."""
    linked = 0
    games = (
        game_model.objects.using(using)
        .order_by("pk")
        .only("pk", "kind", "player_count", "options", "setup")
    )
    for game in games.iterator(chunk_size=100):
        prev = genesis_hash(game)
        batch: list[Any] = []
        events = (
            event_model.objects.using(using)
            .filter(game_id=game.pk)
            .order_by("seq")
            .only("pk", "seq", "seat", "action", "source", "created_at")
        )
        for event in events.iterator(chunk_size=BATCH):
            event.prev_hash = prev
            event.hash = event_hash(
                game_id=game.pk,
                seq=event.seq,
                seat=event.seat,
                action=event.action,
                source=event.source,
                created_at=event.created_at,
                prev_hash=prev,
            )
            prev = event.hash
            batch.append(event)
            if len(batch) >= BATCH:
                event_model.objects.using(using).bulk_update(batch, ["prev_hash", "hash"])
                linked += len(batch)
                batch = []
        if batch:
            event_model.objects.using(using).bulk_update(batch, ["prev_hash", "hash"])
            linked += len(batch)
    return linked


def backfill(apps: Any, schema_editor: Any) -> None:
    game_model = apps.get_model("games", "Game")
    event_model = apps.get_model("games", "Event")
    connection = schema_editor.connection
    postgres = connection.vendor == "postgresql"
    # No try/finally: a failure aborts the migration's transaction, whose rollback undoes the
    # DISABLE as well (and an ENABLE in an aborted transaction would only hide the error).
    if postgres:
        # ALTER TABLE refuses a table with pending trigger events: fire any deferred
        # foreign-key checks now, and at once for the rest of the transaction.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE", params=None)
        schema_editor.execute(f"ALTER TABLE games_event DISABLE TRIGGER {TRIGGER}", params=None)
    link_events(game_model, event_model, using=connection.alias)
    if postgres:
        schema_editor.execute(f"ALTER TABLE games_event ENABLE TRIGGER {TRIGGER}", params=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0004_game_rated")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="prev_hash",
            field=models.CharField(
                editable=False, max_length=64, null=True, verbose_name="previous hash"
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="hash",
            field=models.CharField(editable=False, max_length=64, null=True, verbose_name="hash"),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="event",
            name="prev_hash",
            field=models.CharField(editable=False, max_length=64, verbose_name="previous hash"),
        ),
        migrations.AlterField(
            model_name="event",
            name="hash",
            field=models.CharField(editable=False, max_length=64, verbose_name="hash"),
        ),
    ]
