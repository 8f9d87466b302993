"""Forms of the accounts app: sign-up (allauth's, plus the display name) and settings."""

from __future__ import annotations

import functools
import zoneinfo
from typing import Any

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.display_names import SIMILAR_NAME, NameTaken
from accounts.models import (
    DISPLAY_NAME_MAX_LENGTH,
    DISPLAY_NAME_MIN_LENGTH,
    EmailMode,
    validate_display_name,
)
from accounts.selectors import display_name_taken

# Listed first in the time zone select: where the site's players mostly live.
COMMON_TIME_ZONES = (
    "Europe/Budapest",
    "Europe/Warsaw",
    "Europe/Prague",
    "Europe/Bratislava",
    "Europe/Moscow",
    "Europe/Kaliningrad",
    "Europe/Berlin",
    "Europe/Vienna",
    "Europe/London",
    "UTC",
)
# Names zoneinfo may list that mean nothing to a player.
_HIDDEN_TIME_ZONES = frozenset({"localtime", "Factory"})
# The regions of the IANA names, in the order the select lists them after the common zones;
# every other name (UTC, Etc/GMT+1, old aliases such as US/Eastern) is listed under "Other".
TIME_ZONE_REGIONS = {
    "Europe": _("Europe"),
    "America": _("America"),
    "Asia": _("Asia"),
    "Africa": _("Africa"),
    "Australia": _("Australia"),
    "Pacific": _("Pacific Ocean"),
    "Atlantic": _("Atlantic Ocean"),
    "Indian": _("Indian Ocean"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
}


def _zone_label(zone: str, region: str | None) -> str:
    """A zone's name under its region's heading: "Argentina/Buenos Aires" in America."""
    name = zone.removeprefix(f"{region}/") if region else zone
    return name.replace("_", " ")


@functools.cache
def _time_zones() -> tuple[list[str], dict[str | None, list[str]]]:
    """The common zones, and every other zone by region (None: no region), sorted."""
    available = zoneinfo.available_timezones() - _HIDDEN_TIME_ZONES
    common = [zone for zone in COMMON_TIME_ZONES if zone in available]
    by_region: dict[str | None, list[str]] = {region: [] for region in TIME_ZONE_REGIONS}
    by_region[None] = []
    for zone in sorted(available - set(common)):
        region = zone.split("/", 1)[0]
        by_region[region if region in TIME_ZONE_REGIONS and "/" in zone else None].append(zone)
    return common, by_region


def is_listed_time_zone(zone: str) -> bool:
    """Whether the zone is one the settings page offers (accounts.forms.time_zone_choices)."""
    common, by_region = _time_zones()
    return zone in common or any(zone in zones for zones in by_region.values())


def time_zone_choices() -> list[tuple[Any, list[tuple[str, str]]]]:
    """Grouped choices: the common zones under their full names, then one group per region
    (Europe, America, ...) with the names inside it, then the others; 600 zones in one
    list were too many to find one in."""
    common, by_region = _time_zones()
    groups: list[tuple[Any, list[tuple[str, str]]]] = [
        (_("Common"), [(zone, _zone_label(zone, None)) for zone in common])
    ]
    for region, zones in by_region.items():
        if zones:
            label = TIME_ZONE_REGIONS[region] if region else _("Other")
            groups.append((label, [(zone, _zone_label(zone, region)) for zone in zones]))
    return groups


def display_name_field() -> forms.CharField:
    # The length is checked by validate_display_name alone (one message, not two); the
    # attributes let the browser check it first.
    return forms.CharField(
        label=_("Display name"),
        validators=[validate_display_name],
        help_text=_("What other players see. Your email address is never shown to them."),
        widget=forms.TextInput(
            attrs={
                "autocomplete": "nickname",
                "minlength": DISPLAY_NAME_MIN_LENGTH,
                "maxlength": DISPLAY_NAME_MAX_LENGTH,
            }
        ),
    )


class SignupForm(AllauthSignupForm):
    """allauth's sign-up (email, password twice) with the display name; the adapter
    (accounts.adapter.AccountAdapter.save_user) stores it on the new user."""

    display_name = display_name_field()
    # Filled by accounts/static/accounts/browser_time_zone.js from the browser's own zone
    # (Intl), so that deadlines show in the player's time from the first email on.
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput)

    field_order = ("email", "display_name", "password1", "password2")

    def try_save(self, request: HttpRequest) -> tuple[Any, Any]:
        """Create the account, or, for an address that has one, mail its owner instead
        (ACCOUNT_PREVENT_ENUMERATION); NameTaken if another sign-up took a name like this one
        since the form was checked. A new account's password is hashed; the password typed
        for a registered address is hashed too and thrown away, so that both answers take the
        same time (the hash is most of it; the emails go after the response on both paths:
        accounts.adapter.AccountAdapter.send_mail) and time tells no one which addresses have
        accounts."""
        if self.account_already_exists:
            make_password(self.cleaned_data["password1"])
        try:
            with transaction.atomic():
                return super().try_save(request)
        except IntegrityError:
            if display_name_taken(self.cleaned_data["display_name"]):
                raise NameTaken from None  # accounts.views.SignupView shows the form again
            raise

    def clean_time_zone(self) -> str:
        """The browser's zone if the site lists it, else UTC (as without JavaScript): the
        player never typed it, so an odd value must not stop the sign-up; the settings page
        changes it."""
        zone: str = self.cleaned_data.get("time_zone") or ""
        return zone if is_listed_time_zone(zone) else "UTC"

    def clean_display_name(self) -> str:
        name: str = self.cleaned_data["display_name"]
        if display_name_taken(name):
            raise ValidationError(SIMILAR_NAME, code="similar")
        return name


class SettingsForm(forms.Form):
    """The player's settings page; accounts.services.update_profile saves it."""

    display_name = display_name_field()
    time_zone = forms.ChoiceField(label=_("Time zone"), choices=time_zone_choices)
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
    talk_in_records = forms.BooleanField(
        label=_("My table talk may be in downloaded game records"),
        required=False,
        help_text=_("A finished game's record holds its talk only when every author agreed."),
    )


def _hour_choices() -> list[tuple[int, str]]:
    return [(hour, f"{hour:02d}:00") for hour in range(24)]


class EmailPreferencesForm(forms.Form):
    """Turn emails: every turn, a daily digest, or none; accounts.services saves it."""

    email_mode = forms.ChoiceField(
        label=_("Turn emails"), choices=EmailMode.choices, widget=forms.RadioSelect
    )
    digest_hour = forms.TypedChoiceField(
        label=_("Digest hour"),
        choices=_hour_choices,
        coerce=int,
        help_text=_("When the daily digest comes, in your time zone"),
    )


class VacationForm(forms.Form):
    """A vacation by local dates, first and last day included; accounts.vacations checks it."""

    first_day = forms.DateField(
        label=_("First day"), widget=forms.DateInput(attrs={"type": "date"})
    )
    last_day = forms.DateField(label=_("Last day"), widget=forms.DateInput(attrs={"type": "date"}))
