"""The outbox's part of a user's data export (``manage.py export_user_data``), and the
player's feeds (whether a calendar address exists, the webhook address and format; never the
secrets, which the player sees on their settings page)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.maintenance import iso

from .models import CalendarFeed, Notification, PushSubscription, WebhookDestination


def user_data(user: User) -> dict[str, Any]:
    """The messages queued for ``user`` (what, for which game, on which channel, and whether
    they went out), their channels' choices (for turns and for table talk) and the devices
    that receive their pushes."""
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
        "message_modes": dict(sorted((user.message_modes or {}).items())),
        "push_subscriptions": [
            {"endpoint": p.endpoint, "created_at": iso(p.created_at)}
            for p in PushSubscription.objects.filter(user=user).order_by("created_at", "pk")
        ],
        **feeds_data(user),
    }


def feeds_data(user: User) -> dict[str, Any]:
    feed = CalendarFeed.objects.filter(user=user).first()
    hook = WebhookDestination.objects.filter(user=user).first()
    return {
        "calendar_feed": {"created_at": iso(feed.created_at)} if feed else None,
        "webhook": (
            {"url": hook.url, "format": hook.format, "created_at": iso(hook.created_at)}
            if hook
            else None
        ),
    }
