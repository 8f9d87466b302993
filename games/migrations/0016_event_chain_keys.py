"""Key the event hash chain (HMAC-SHA256 under ``settings.EVENT_CHAIN_KEYS``) and record the
periodic chain check on the game.

``Event.hash_key`` names the key of each event's hash ("" for the plain SHA-256 of 0005). Every
game whose plain chain is intact is then re-signed with the signing key, so that after this
migration no unkeyed hash remains and none is accepted: a forger who could write the database
could otherwise write whole chains in the old, keyless scheme. A game whose plain chain is
already broken is not re-signed (that would launder the edit): it keeps its plain hashes, is
frozen with what the check found, and stays so until staff repair its log and re-sign it
(``manage.py resign_event_chains --game ID --unkeyed``).

On PostgreSQL the append-only trigger is disabled for the rewrite and enabled again, inside
this migration's transaction. Reversing re-signs every intact keyed chain with plain SHA-256.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import migrations, models
from django.utils import timezone

from games.event_chain import ChainKeys, current_keys, events_writable, resign_game

log = logging.getLogger("games.integrity")


def _resign_all(apps: Any, schema_editor: Any, verify: ChainKeys, sign: ChainKeys) -> int:
    """Re-sign every game's chain; freeze the games whose chain does not verify. Returns the
    number of games frozen here."""
    game_model = apps.get_model("games", "Game")
    event_model = apps.get_model("games", "Event")
    db = schema_editor.connection.alias
    frozen = 0
    games = game_model.objects.using(db).order_by("pk").only(
        "pk", "kind", "player_count", "options", "setup", "seq", "chain_head", "frozen_at"
    )
    with events_writable(schema_editor.connection):
        for game in games.iterator(chunk_size=100):
            problems, _ = resign_game(game, event_model, verify, sign, using=db)
            if problems and game.frozen_at is None:
                lines = [
                    f"the event chain was broken before it was keyed ({len(problems)} "
                    "problem(s)):",
                    *(f"  {problem}" for problem in problems[:20]),
                ]
                game_model.objects.using(db).filter(pk=game.pk).update(
                    frozen_at=timezone.now(), frozen_reason="\n".join(lines), chain_intact=False
                )
                log.error("game frozen: its event log failed an integrity check",
                          extra={"game_id": game.pk, "reason": "\n".join(lines)})
                frozen += 1
    return frozen


def keyed(apps: Any, schema_editor: Any) -> None:
    _resign_all(apps, schema_editor, ChainKeys((), unkeyed=True), current_keys())


def unkeyed(apps: Any, schema_editor: Any) -> None:
    _resign_all(apps, schema_editor, current_keys(), ChainKeys(()))


class Migration(migrations.Migration):
    dependencies = [("games", "0015_private_tables")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="hash_key",
            field=models.CharField(
                blank=True, default="", editable=False, max_length=8, verbose_name="hash key"
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="chain_checked_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="chain checked at"
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="chain_intact",
            field=models.BooleanField(editable=False, null=True, verbose_name="chain intact"),
        ),
        migrations.RunPython(keyed, unkeyed),
    ]
