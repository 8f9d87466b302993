"""The site's user: Django's user plus what a correspondence player sets once."""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not a known time zone."), params={"value": value})


class User(AbstractUser):
    """A player. Sign-in is by email (allauth); the display name is what others see."""

    email = models.EmailField(_("email address"), unique=True)
    display_name = models.CharField(_("display name"), max_length=40, blank=True)
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
