"""Vacations: days a player declares away, during which their game clocks stop.

A player has ``settings.VACATION_DAYS_PER_YEAR`` days a calendar year (default 30), counted
in their own time zone, a day begun counting whole. A vacation is declared by local dates,
from the first day to the last, inclusive; it cannot begin in the past, overlap another or
exceed the allowance, and only one that has not begun can be taken back (a begun one has
already stopped clocks). The clocks read the rows directly (``games.clock``).
"""

from __future__ import annotations

import zoneinfo
from collections import Counter
from collections.abc import Callable
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User, Vacation

#: called with the user's id after a vacation was added or removed (once committed): a game
#: app may register a callback that moves the deadlines it has stored
CHANGED_HOOKS: list[Callable[[int], None]] = []

#: how far ahead a vacation may be declared
MAX_DAYS_AHEAD = 366


def allowance() -> int:
    """Vacation days per calendar year."""
    return getattr(settings, "VACATION_DAYS_PER_YEAR", 30)


def user_zone(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.time_zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def local_today(user: User, now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(user_zone(user)).date()


def local_days(user: User, starts_at: datetime, ends_at: datetime) -> tuple[date, date]:
    """The first and last local date a stored vacation touches."""
    zone = user_zone(user)
    last = (ends_at - timedelta(microseconds=1)).astimezone(zone).date()
    return starts_at.astimezone(zone).date(), last


def days_per_year(first: date, last: date) -> Counter[int]:
    """How many of the dates first..last (inclusive) fall in each calendar year."""
    counts: Counter[int] = Counter()
    day = first
    while day <= last:
        year_end = date(day.year, 12, 31)
        stop = min(last, year_end)
        counts[day.year] += (stop - day).days + 1
        day = stop + timedelta(days=1)
    return counts


def days_used(user: User, year: int) -> int:
    """Vacation days ``user`` has declared in calendar ``year`` (taken or still ahead)."""
    start = datetime.combine(date(year, 1, 1), time(0), tzinfo=user_zone(user))
    end = datetime.combine(date(year + 1, 1, 1), time(0), tzinfo=user_zone(user))
    used: Counter[int] = Counter()
    for vacation in Vacation.objects.filter(user=user, starts_at__lt=end, ends_at__gt=start):
        used += days_per_year(*local_days(user, vacation.starts_at, vacation.ends_at))
    return used[year]


def days_left(user: User, year: int) -> int:
    return max(0, allowance() - days_used(user, year))


def _date(day: date) -> str:
    return formats.date_format(day, "DATE_FORMAT")


def vacation_create(
    *, user: User, first_day: date, last_day: date, now: datetime | None = None
) -> Vacation:
    """Declare a vacation from ``first_day`` to ``last_day`` (local dates, inclusive).

    It begins at the local midnight of the first day, or now when that is today (a vacation
    never stops a clock retroactively), and ends at the midnight after the last day. Raises
    ``ValidationError`` with a message for the player when it is refused.
    """
    now = now or timezone.now()
    zone = user_zone(user)
    today = local_today(user, now)
    if last_day < first_day:
        raise ValidationError(_("The last day comes before the first day."), code="order")
    if first_day < today:
        raise ValidationError(
            _("A vacation cannot begin in the past: the first day is %(day)s at the earliest.")
            % {"day": _date(today)},
            code="past",
        )
    if first_day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise ValidationError(
            _("A vacation can be declared at most a year ahead."), code="too_far"
        )
    starts_at = max(now, datetime.combine(first_day, time(0), tzinfo=zone))
    ends_at = datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=zone)
    wanted = days_per_year(first_day, last_day)
    with transaction.atomic():
        # one declaration at a time per player: two at once could both fit the allowance
        User.objects.select_for_update().filter(pk=user.pk).first()
        clash = (
            Vacation.objects.filter(user=user, starts_at__lt=ends_at, ends_at__gt=starts_at)
            .order_by("starts_at")
            .first()
        )
        if clash is not None:
            first, last = local_days(user, clash.starts_at, clash.ends_at)
            raise ValidationError(
                _("It overlaps your vacation from %(first)s to %(last)s.")
                % {"first": _date(first), "last": _date(last)},
                code="overlap",
            )
        for year, days in sorted(wanted.items()):
            used = days_used(user, year)
            if used + days > allowance():
                left = max(0, allowance() - used)
                raise ValidationError(
                    ngettext(
                        "That is %(days)s vacation day in %(year)s, but you have only "
                        "%(left)s left of %(allowance)s this year.",
                        "That is %(days)s vacation days in %(year)s, but you have only "
                        "%(left)s left of %(allowance)s this year.",
                        days,
                    )
                    % {"days": days, "year": year, "left": left, "allowance": allowance()},
                    code="allowance",
                )
        vacation = Vacation.objects.create(user=user, starts_at=starts_at, ends_at=ends_at)
        _changed(user.pk)
    return vacation


def vacation_delete(*, user: User, vacation_id: int, now: datetime | None = None) -> None:
    """Take back a vacation that has not begun; a begun one has already stopped clocks."""
    now = now or timezone.now()
    with transaction.atomic():
        vacation = Vacation.objects.select_for_update().filter(pk=vacation_id, user=user).first()
        if vacation is None:
            raise ValidationError(_("There is no such vacation."), code="missing")
        if vacation.starts_at <= now:
            raise ValidationError(
                _("This vacation has begun: it can no longer be removed."), code="begun"
            )
        vacation.delete()
        _changed(user.pk)


def vacations_ahead(*, user: User, now: datetime | None = None) -> list[Vacation]:
    """The player's vacations that have not ended, in order."""
    now = now or timezone.now()
    return list(Vacation.objects.filter(user=user, ends_at__gt=now).order_by("starts_at"))


def _changed(user_id: int) -> None:
    for hook in CHANGED_HOOKS:
        transaction.on_commit(lambda hook=hook: hook(user_id))
