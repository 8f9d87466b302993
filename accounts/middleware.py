"""Pages in the player's own time zone: the logged-in user's ``time_zone`` is activated for the
request (templates then show every aware datetime in it); anonymous visitors see UTC."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone


def user_time_zone(user: object) -> zoneinfo.ZoneInfo | None:
    """The zone of a logged-in user, or None (anonymous, or a name zoneinfo does not know)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    name = getattr(user, "time_zone", "") or ""
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


class UserTimeZoneMiddleware:
    """Activate the user's time zone for the request; must come after AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = user_time_zone(getattr(request, "user", None))
        if zone is None:
            timezone.deactivate()  # the default: settings.TIME_ZONE (UTC)
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()  # the thread serves the next request with a clean slate
