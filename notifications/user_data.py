"""The outbox's part of a user's data export (``manage.py export_user_data``)."""

from __future__ import annotations

from typing import Any

from accounts.models import User

from .models import Notification


def notifications_section(user: User) -> list[dict[str, Any]]:
    """The messages queued for ``user``: what, for which game, and whether they went out."""
    return [
        {
            "kind": n.kind,
            "game": n.game_id,
            "status": n.status,
            "created_at": _iso(n.created_at),
            "sent_at": _iso(n.sent_at),
        }
        for n in Notification.objects.filter(user=user).order_by("created_at", "pk")
    ]


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None
