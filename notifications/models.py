"""The outbox's rows: one per message that became due, created in the transaction that made it due.

The model was born in ``games`` and moved here with the channels; its table keeps the name it
had there (``games_notification``), so existing rows stayed where they were.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class NotificationKind(models.TextChoices):
    TURN = "turn", _("your turn")
    REMINDER = "reminder", _("deadline reminder")
    TIMEOUT = "timeout", _("a turn timed out")
    FINISHED = "finished", _("game over")
    DIGEST = "digest", _("daily digest")
    #: a player wrote at the table (talk.Message): ``Notification.message`` says which
    MESSAGE = "message", _("table talk")


class NotificationStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENDING = "sending", _("sending")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")
    SKIPPED = "skipped", _("skipped")


class Channel(models.TextChoices):
    """The ways a player hears of their games; each has its sender in ``notifications.channels``."""

    EMAIL = "email", _("Email")
    PUSH = "push", _("Browser notifications")
    WEBHOOK = "webhook", _("Chat webhook")


class ChannelMode(models.TextChoices):
    """A channel's choice: the same three as the email setting (``accounts.models.EmailMode``,
    whose values these are), so one rule decides what each channel carries."""

    EVERY_TURN = "every_turn", _("every turn")
    DAILY_DIGEST = "daily_digest", _("daily digest")
    NONE = "none", _("off")


class MessageMode(models.TextChoices):
    """A channel's choice for table talk (``User.message_modes``), apart from its turn choice:
    a message of its own for every message, the messages in the next turn email (only email
    shows them there), or nothing. ``notifications.reader.message_mode`` reads it with each
    channel's default."""

    EVERY_MESSAGE = "every_message", _("every message")
    WITH_TURN = "with_turn", _("with the next turn email")
    NONE = "none", pgettext_lazy("table talk notifications", "never")


class Notification(models.Model):
    """One message that is due on one channel: created in the transaction that made it due
    (an outbox), sent after commit by a task through its channel's sender, retried by a
    periodic sweep. ``key`` is unique per (seat, sequence number, kind, channel), so a task run
    twice, or two sweeps, send one message. Email rows keep the key they always had (their
    Message-ID is made from it); the other channels' keys start with the channel's name."""

    key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=10, choices=NotificationKind.choices)
    channel = models.CharField(
        max_length=10, choices=Channel.choices, default=Channel.EMAIL, db_default=Channel.EMAIL
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    game = models.ForeignKey(
        "games.Game",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    #: the table talk a MESSAGE row announces (the other kinds have none)
    message = models.ForeignKey(
        "talk.Message",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
    )
    status = models.CharField(
        max_length=10, choices=NotificationStatus.choices, default=NotificationStatus.QUEUED
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    #: queued rows wait until this time (back-off after a failed attempt)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    #: when the current run of failed attempts began: the email is given up (status failed)
    #: NOTIFICATION_RETRY_HOURS after it; null while no attempt has failed
    failing_since = models.DateTimeField(null=True, blank=True)
    #: when it was given up: what ``notifications.outbox.failed_count`` counts for /healthz
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # the table it had in games, kept when the model moved here (migration 0001)
        db_table = "games_notification"
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="notification_due"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class PushSubscription(models.Model):
    """A browser or phone that allowed the site's notifications (the Push API's subscription):
    its push service's endpoint and the keys its messages are encrypted to (RFC 8291). One
    the push service answers 404 or 410 for is gone, and is deleted."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=2000, unique=True)
    #: the browser's P-256 public key and auth secret, base64url as the browser gives them
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.endpoint[:60]}"


class InboundOutcome(models.TextChoices):
    """What became of a reply to a turn email (notifications.inbound.handler); the labels are
    for staff in the admin, in English."""

    PROCESSING = "processing", "being handled"
    APPLIED = "applied", "moves applied"
    #: only a message: it was posted to the table (a reply with moves too is APPLIED)
    MESSAGE = "message", "message posted"
    HELP = "help", "help sent"
    REFUSED = "refused", "moves refused"
    STALE = "stale", "turn over"
    FORGED = "forged", "sender is not the seat's player"
    DMARC_FAIL = "dmarc_fail", "DMARC failed"
    LOOP = "loop", "automatic mail ignored"
    RATE_LIMITED = "rate_limited", "too many replies"
    TOO_LARGE = "too_large", "too large"
    UNKNOWN_ADDRESS = "unknown_address", "unknown address"
    GARBAGE = "garbage", "not an email"


class InboundMessage(models.Model):
    """One received reply, stored once (its Message-ID is unique): the same message delivered
    twice acts once and is answered once. Its body is not kept, only what became of it."""

    message_id = models.CharField(max_length=255, unique=True)
    received_at = models.DateTimeField(default=timezone.now)
    sender = models.CharField(max_length=254, blank=True)
    size = models.PositiveIntegerField(default=0)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_seq = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.CharField(
        max_length=20, choices=InboundOutcome.choices, default=InboundOutcome.PROCESSING
    )
    #: the actions applied, or why nothing was (an error code), for staff
    detail = models.TextField(blank=True)
    #: when the answer email went out; None: none is due, or it is still to be sent
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.message_id} ({self.outcome})"


# the player's feeds (a calendar address, a chat webhook) live in a module of their own
from .feed_models import CalendarFeed, WebhookDestination, WebhookFormat  # noqa: E402, F401
