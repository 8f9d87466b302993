"""The site's user: Django's user plus what a correspondence player sets once."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

from accounts.display_names import (
    DISPLAY_NAME_MAX_LENGTH,
    DISPLAY_NAME_MIN_LENGTH,
    SIMILAR_NAME,
    name_keys,
    validate_characters,
    validate_not_reserved,
)
from keltis_site.prepared import Prepared


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not a known time zone."), params={"value": value})


def validate_display_name(value: str) -> None:
    """A display name is shown to other players: 2 to 40 characters, none invisible, no odd
    spacing or stray marks, not a name the site gives its bots (accounts.display_names), and
    not an email address. That no other player has a
    name too like it is checked apart (accounts.selectors.display_name_taken) and kept by
    User's constraints."""
    validate_characters(value)
    value = value.strip()
    if not DISPLAY_NAME_MIN_LENGTH <= len(value) <= DISPLAY_NAME_MAX_LENGTH:
        raise ValidationError(
            _("A display name has %(min)d to %(max)d characters."),
            code="length",
            params={"min": DISPLAY_NAME_MIN_LENGTH, "max": DISPLAY_NAME_MAX_LENGTH},
        )
    validate_not_reserved(value)
    try:
        validate_email(value)
    except ValidationError:
        return
    raise ValidationError(
        _("Other players see your display name: do not use an email address."), code="email"
    )


class EmailMode(models.TextChoices):
    """How a player hears that it is their turn."""

    EVERY_TURN = "every_turn", _("an email every turn")
    DAILY_DIGEST = "daily_digest", _("one daily digest of all games waiting")
    NONE = "none", _("no emails")


class UserManager(DjangoUserManager["User"]):
    """Django's, with the read every request of a logged-in player makes, the session's user by
    primary key alone (``ModelBackend.get_user``), compiled to SQL once per process
    (keltis_site.prepared): building and compiling that queryset cost more CPU than the query."""

    def get(self, *args: Any, **kwargs: Any) -> User:
        if args or kwargs.keys() != {"pk"} or type(kwargs["pk"]) is not int:
            return super().get(*args, **kwargs)
        found = _USER_BY_PK.run(kwargs["pk"], using=self.db)
        if not found:
            raise self.model.DoesNotExist(
                f"{self.model._meta.object_name} matching query does not exist."
            )
        return found[0]


class User(AbstractUser):
    """A player. Sign-in is by email (allauth); the display name is what others see."""

    email = models.EmailField(_("email address"), unique=True)
    display_name = models.CharField(
        _("display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        blank=True,
        validators=[validate_display_name],
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_time_zone]
    )
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        """The name other players see: never the email address."""
        return self.display_name or self.username

    email_mode = models.CharField(
        _("turn emails"), max_length=16, choices=EmailMode.choices, default=EmailMode.EVERY_TURN
    )
    #: turn messages even while the player is at the game (notifications.quiet): off, a turn
    #: the player is watching or just played waits until they have been away a while
    always_notify = models.BooleanField(_("always notify me"), default=False)
    #: the choice for each channel but email (whose choice is email_mode), by the channel's
    #: name (notifications.models.Channel): {"push": "every_turn"}; a channel absent is off.
    #: On the user row, which play reads with the seats: a move's outbox rows need no query.
    channel_modes = models.JSONField(_("notification channels"), default=dict, blank=True)
    #: the choice for table talk on each channel (notifications.models.MessageMode), by the
    #: channel's name: {"email": "with_turn"}; a channel absent takes MessageMode's default
    message_modes = models.JSONField(_("table talk notifications"), default=dict, blank=True)
    #: whether the player's table talk may be in a finished game's downloaded record (talk:
    #: a record holds talk only when every author of it agreed)
    talk_in_records = models.BooleanField(_("my table talk in game records"), default=False)
    #: local hour (in the user's time zone) at which the daily digest goes out
    digest_hour = models.PositiveSmallIntegerField(_("digest hour"), default=7)
    #: when the player's latest vacation ends (None: never had one), kept by Vacation's save
    #: and delete signals: the game clock, which reads users with their seats, makes no
    #: vacation query for a player whose vacations are all behind (games.clock)
    vacations_end = models.DateTimeField(null=True, blank=True, editable=False)
    #: a bot account (api.bot_accounts): plays only through the API, shown as a bot; for good
    is_bot = models.BooleanField(_("bot account"), default=False, editable=False)
    #: the display name's keys (accounts.display_names.name_keys), kept by save(); empty with
    #: no display name. Each is unique: no two players have names that read alike. (The
    #: database default is for loaders that write rows directly, such as bench/scale.py.)
    display_name_skeleton = models.TextField(
        default="", db_default="", blank=True, editable=False
    )
    display_name_folded_skeleton = models.TextField(
        default="", db_default="", blank=True, editable=False
    )

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["display_name_skeleton"],
                condition=~models.Q(display_name_skeleton=""),
                name="user_display_name_skeleton_unique",
                violation_error_message=SIMILAR_NAME,
            ),
            models.UniqueConstraint(
                fields=["display_name_folded_skeleton"],
                condition=~models.Q(display_name_folded_skeleton=""),
                name="user_display_name_folded_skeleton_unique",
                violation_error_message=SIMILAR_NAME,
            ),
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save with the display name's keys computed from it. Here and not in the services:
        the keys must follow the name however it is saved (sign-up, settings, the admin,
        create_user, fixtures), or a name saved one way could slip past the constraints."""
        self.display_name_skeleton, self.display_name_folded_skeleton = name_keys(
            self.display_name
        )
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {
                *update_fields,
                "display_name_skeleton",
                "display_name_folded_skeleton",
            }
        super().save(*args, **kwargs)


class Vacation(models.Model):
    """Days a player is away: their clocks stop (a yearly allowance, settings.VACATION_DAYS)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField(_("from"))
    ends_at = models.DateTimeField(_("until"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")), name="vacation_ends_after"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.starts_at:%Y-%m-%d} to {self.ends_at:%Y-%m-%d}"


@receiver(post_save, sender=Vacation, dispatch_uid="accounts.vacation_saved")
@receiver(post_delete, sender=Vacation, dispatch_uid="accounts.vacation_deleted")
def _vacations_changed(sender: type[Vacation], instance: Vacation, **kwargs: object) -> None:
    """Keep ``User.vacations_end`` after any vacation is saved or deleted (QuerySet.delete
    sends the signal per row too; a QuerySet.update of vacation times would not: nothing does)."""
    latest = Vacation.objects.filter(user_id=instance.user_id).order_by("-ends_at")
    User.objects.filter(pk=instance.user_id).update(
        vacations_end=models.Subquery(latest.values("ends_at")[:1])
    )


#: the session's user (UserManager.get), compiled once per process and database
_USER_BY_PK = Prepared(lambda pk: User._base_manager.filter(pk=pk).order_by())


class Block(models.Model):
    """``blocker`` wants nothing from ``blocked``: no invitation, challenge or message from
    them, and no table with them (the matchmaker seats them apart, neither may join a table
    the other sits at). Only the blocker sees it (accounts.blocks)."""

    blocker = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks_made")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker} blocks {self.blocked}"
