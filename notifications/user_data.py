"""The outbox's part of a user's data export (``manage.py export_user_data``)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.maintenance import iso

from .models import Notification, PushSubscription


def user_data(user: User) -> dict[str, Any]:
    """The messages queued for ``user`` (what, for which game, on which channel, and whether
    they went out), their channels' choices and the devices that receive their pushes."""
    rows = Notification.objects.filter(user=user).order_by("created_at", "pk")
    return {
        "notifications": [
            {
                "kind": n.kind,
                "channel": n.channel,
                "game": n.game_id,
                "status": n.status,
                "created_at": iso(n.created_at),
                "sent_at": iso(n.sent_at),
            }
            for n in rows
        ],
        "channel_modes": dict(sorted((user.channel_modes or {}).items())),
        "push_subscriptions": [
            {"endpoint": p.endpoint, "created_at": iso(p.created_at)}
            for p in PushSubscription.objects.filter(user=user).order_by("created_at", "pk")
        ],
    }
