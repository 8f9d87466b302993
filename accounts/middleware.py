"""Pages in the player's own time zone and language: the logged-in user's ``time_zone`` is
activated for the request (templates then show every aware datetime in it; anonymous visitors
see UTC), and so is their saved ``language``."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation


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


class UserLanguageMiddleware:
    """A logged-in player's saved language wins over the cookie and the browser.

    LocaleMiddleware (earlier in the chain) has already picked a language from the language
    cookie or Accept-Language; once AuthenticationMiddleware knows the user, the language saved
    on their profile replaces it, so pages and the emails a request triggers agree with the
    profile on every device.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = user_language(getattr(request, "user", None))
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)


def user_language(user: object) -> str | None:
    """The saved language of a logged-in user, when it is one the site ships."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    language = getattr(user, "language", "") or ""
    return language if language in dict(settings.LANGUAGES) else None
