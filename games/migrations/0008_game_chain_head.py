"""Keep the head of each game's event chain on the game row (``Game.chain_head``).

The column is added empty and set to the hash of each game's last event (seq = the game's seq)
in one UPDATE; games without events keep "". Reversing drops the column.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def set_heads(apps: Any, schema_editor: Any) -> None:
    game = apps.get_model("games", "Game")
    event = apps.get_model("games", "Event")
    last = event.objects.filter(game_id=OuterRef("pk"), seq=OuterRef("seq")).values("hash")[:1]
    db = schema_editor.connection.alias
    game.objects.using(db).filter(seq__gt=0).update(
        chain_head=Coalesce(Subquery(last), Value(""))
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_ordering_by_column"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="chain_head",
            field=models.CharField(blank=True, default="", editable=False, max_length=64),
        ),
        migrations.RunPython(set_heads, migrations.RunPython.noop),
    ]
