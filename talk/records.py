"""The table talk in a finished game's downloaded record (``games.selectors.RECORD_PARTS``)."""

from __future__ import annotations

from typing import Any

from games.models import Game

from .models import Message


def record_talk(game: Game) -> dict[str, Any]:
    """``{"talk": [{"seq", "author", "created_at", "text"}]}`` for a finished game's record,
    only when every author of a message not hidden by staff has agreed to it
    (``User.talk_in_records``); otherwise ``{}``: the record has no ``talk`` key at all, so a
    player who did not agree is never in a file passed around. Hidden messages are never in
    it. The record exists only once the game has finished (games refuses it before)."""
    rows = list(
        Message.objects.filter(game=game, hidden_at__isnull=True)
        .select_related("author")
        .order_by("created_at", "pk")
    )
    if not rows or not all(row.author.talk_in_records for row in rows):
        return {}
    return {
        "talk": [
            {
                "seq": row.seq,
                "author": row.author.public_name,
                "created_at": row.created_at.isoformat(),
                "text": row.text,
            }
            for row in rows
        ]
    }
