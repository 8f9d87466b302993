"""Invitations (to a game's seat or to a club), the addresses that asked never to hear from us,
and rematch offers.

An invitation is its own outbox row for its email (``mail_*``): it is written in the
transaction that creates it and sent after commit, retried by the sweep, as the turn emails
are. An invitee without an account is an address (``email``) until they sign up.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class InvitationStatus(models.TextChoices):
    PENDING = "pending", _("waiting for an answer")
    ACCEPTED = "accepted", _("accepted")
    DECLINED = "declined", _("declined")
    EXPIRED = "expired", _("expired")
    WITHDRAWN = "withdrawn", _("withdrawn")


class MailStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENDING = "sending", _("sending")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")
    BOUNCED = "bounced", _("bounced")
    #: nothing to send (an answer came first, or the invitation was withdrawn before it went)
    SKIPPED = "skipped", _("skipped")


class Invitation(models.Model):
    """One person asked to one table (``game``) or one club (``league``), by name or address."""

    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="invitations"
    )
    league = models.ForeignKey(
        "tournaments.League",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="invitations",
    )
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="invitations_sent",
    )
    #: the member invited (None: an address without an account, until it signs up and accepts)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="invitations_received",
    )
    #: the address invited, lower-cased ("" for a member invited by name)
    email = models.EmailField(_("email address"), blank=True, default="")
    #: the language of its email: the invitee's, else the inviter's
    language = models.CharField(max_length=8, default=settings.LANGUAGE_CODE)
    #: the link's secret (``friends.tokens``): good for this invitation only, until it is answered
    secret = models.CharField(max_length=64, editable=False)
    status = models.CharField(
        max_length=10,
        choices=InvitationStatus.choices,
        default=InvitationStatus.PENDING,
        db_index=True,
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    #: who accepted it (the invitee, or whoever signed up from an address's link)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # -- its email, an outbox row of its own ------------------------------------------------------
    mail_status = models.CharField(
        max_length=10, choices=MailStatus.choices, default=MailStatus.QUEUED, db_index=True
    )
    mail_attempts = models.PositiveSmallIntegerField(default=0)
    mail_next_at = models.DateTimeField(default=timezone.now)
    mail_claimed_at = models.DateTimeField(null=True, blank=True)
    mail_sent_at = models.DateTimeField(null=True, blank=True)
    mail_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(game__isnull=False) & Q(league__isnull=True))
                | (Q(game__isnull=True) & Q(league__isnull=False)),
                name="invitation_one_target",
            ),
            models.CheckConstraint(
                condition=Q(invitee__isnull=False) | ~Q(email=""),
                name="invitation_someone",
            ),
            models.UniqueConstraint(
                fields=["game", "invitee"],
                condition=Q(status="pending", invitee__isnull=False, game__isnull=False),
                name="invitation_game_member_once",
            ),
            models.UniqueConstraint(
                fields=["game", "email"],
                condition=Q(status="pending", game__isnull=False) & ~Q(email=""),
                name="invitation_game_address_once",
            ),
            models.UniqueConstraint(
                fields=["league", "invitee"],
                condition=Q(status="pending", invitee__isnull=False, league__isnull=False),
                name="invitation_league_member_once",
            ),
            models.UniqueConstraint(
                fields=["league", "email"],
                condition=Q(status="pending", league__isnull=False) & ~Q(email=""),
                name="invitation_league_address_once",
            ),
        ]
        indexes = [
            # the rate limit counts an inviter's invitations to addresses of the last day
            models.Index(fields=["inviter", "created_at"], name="invitation_by_inviter"),
            models.Index(
                fields=["mail_next_at"],
                name="invitation_mail_queued",
                condition=Q(mail_status="queued"),
            ),
        ]

    def __str__(self) -> str:
        target = f"game {self.game_id}" if self.game_id else f"league {self.league_id}"
        return f"invitation {self.pk} to {target}"

    @property
    def pending(self) -> bool:
        return self.status == InvitationStatus.PENDING

    def invitee_name(self) -> str:
        """Who it is for: a member's name, or the address (for its inviter: ``name_for``)."""
        return self.invitee.public_name if self.invitee_id else self.email

    def name_for(self, viewer: Any) -> str:
        """Who it is for, as ``viewer`` may see it: a member's name; an address only for its
        inviter and staff ("" for anyone else: the pages say "someone invited by email")."""
        if self.invitee_id is not None:
            return self.invitee.public_name
        if viewer is not None and (viewer.pk == self.inviter_id or viewer.is_staff):
            return self.email
        return ""


class OptOut(models.Model):
    """An address that asked never to get an invitation again, or whose mail bounced: no
    invitation is ever sent to it. Works without an account (the link in every invitation)."""

    class Reason(models.TextChoices):
        ASKED = "asked", _("asked never to be emailed")
        BOUNCED = "bounced", _("the address bounced")

    email = models.EmailField(unique=True)
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.ASKED)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.email} ({self.reason})"


class RematchStatus(models.TextChoices):
    OFFERED = "offered", _("offered")
    STARTED = "started", _("started")
    DECLINED = "declined", _("declined")


class Rematch(models.Model):
    """The same table again after a game's end: the same players and options, seats rotated.
    Its game is made once every person of the old table has accepted."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="rematch")
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    offered_at = models.DateTimeField(default=timezone.now)
    #: the people who said yes so far (the offerer first)
    accepted = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+", blank=True)
    declined_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    status = models.CharField(
        max_length=10, choices=RematchStatus.choices, default=RematchStatus.OFFERED
    )
    new_game = models.OneToOneField(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )

    def __str__(self) -> str:
        return f"rematch of game {self.game_id}"
