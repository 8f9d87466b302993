"""The player's own feeds: a secret calendar address and a chat webhook destination.

Kept apart from the outbox's rows (``models.Notification``): these say where a player's news
may go, not what is due. ``models`` imports them, so Django and the migrations see them.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def new_key() -> str:
    """A fresh random secret (32 bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


class CalendarFeed(models.Model):
    """A player's secret calendar address. The address is not stored: it is derived from
    ``key`` with the site's SECRET_KEY (``channels.calendar.feed_token``), so a copy of the
    database alone reveals no address; a new ``key`` (regenerate) retires the old address."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    key = models.CharField(max_length=64, default=new_key)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"calendar of {self.user_id}"


class WebhookFormat(models.TextChoices):
    DISCORD = "discord", _("Discord")
    SLACK = "slack", _("Slack")
    JSON = "json", _("JSON (signed)")


class WebhookDestination(models.Model):
    """Where a player's news is POSTed (one per player). ``secret`` signs every request
    (HMAC-SHA256, ``channels.webhook``); the player sees it to check the signature."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook"
    )
    url = models.URLField(_("webhook address"), max_length=500)
    format = models.CharField(
        _("message format"),
        max_length=10,
        choices=WebhookFormat.choices,
        default=WebhookFormat.DISCORD,
    )
    secret = models.CharField(max_length=64, default=new_key)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"webhook of {self.user_id} ({self.format})"
