"""Messages written at a table, and what players and staff do about them.

A message is what a person typed, kept as typed (escaped wherever it is shown, never HTML); it
belongs to its game and remembers the move number it was written at (``seq``), so the history
shows it at its place. Staff hide a message (it then reads "hidden by staff") rather than
delete it, so a report keeps its context.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Via(models.TextChoices):
    PAGE = "page", _("the game page")
    EMAIL = "email", _("a reply by email")
    API = "api", _("the API")


class Message(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="talk_messages"
    )
    #: the game's number of events when it was written (the move it follows)
    seq = models.PositiveIntegerField()
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    via = models.CharField(max_length=8, choices=Via.choices, default=Via.PAGE)
    #: the Message-ID of the email reply that posted it: a reply handled again (its worker died
    #: before the reply's row was closed) finds its message instead of posting it twice
    reply_message_id = models.CharField(max_length=255, blank=True, default="")
    #: set by staff (talk.moderation.message_hide): shown as "hidden by staff" to everyone
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["game_id", "created_at", "pk"]
        indexes = [models.Index(fields=["game", "created_at"], name="talk_message_by_game")]
        constraints = [
            models.UniqueConstraint(
                fields=["reply_message_id"],
                condition=~models.Q(reply_message_id=""),
                name="talk_message_once_per_reply",
            )
        ]

    def __str__(self) -> str:
        return f"message {self.pk} in game {self.game_id}"

    @property
    def hidden(self) -> bool:
        return self.hidden_at is not None


class Mute(models.Model):
    """A player who muted a table's talk: its messages are folded away and notify them not."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="talk_mute_once")]

    def __str__(self) -> str:
        return f"{self.user_id} muted game {self.game_id}"


class Report(models.Model):
    """A player asks staff to look at a message (the admin lists open reports with context)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["message", "reporter"], name="talk_report_once")
        ]

    def __str__(self) -> str:
        return f"report of message {self.message_id}"


class Suspension(models.Model):
    """A player staff took out of table talk until ``until`` (None: until lifted)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="talk_suspension"
    )
    until = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"talk suspension of {self.user_id}"

    def active(self, now: object = None) -> bool:
        return self.until is None or self.until > (now or timezone.now())
