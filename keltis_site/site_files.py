"""The files every site is asked for at its root: /robots.txt and /favicon.ico.

robots.txt lets crawlers read the public pages (home, lobby, games, rules, ratings,
tournaments, leagues, profiles) and keeps them out of what is personal or one person's to
use: emailed action and unsubscribe links, the email settings, the account pages, the
pages that need a login, the admin and the health check. The paths come from the URL
configuration, so a moved route moves here too.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

DAY = 24 * 3600


def _first_segment(path: str) -> str:
    """``/t/<token>/`` → ``/t/``: the prefix under which a route's addresses all lie."""
    return "/" + path.lstrip("/").split("/", 1)[0] + "/"


def disallowed_paths() -> list[str]:
    return [
        _first_segment(reverse("email_action", args=["token"])),
        _first_segment(reverse("email_unsubscribe", args=["token"])),
        _first_segment(reverse("email_preferences")),
        _first_segment(reverse("account_login")),
        _first_segment(reverse("admin:index")),
        reverse("game_create"),
        reverse("my_games"),
        reverse("healthz"),
    ]


@require_GET
@cache_control(max_age=DAY)
def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in disallowed_paths())]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


@require_GET
@cache_control(max_age=DAY)
def favicon(request: HttpRequest) -> HttpResponse:
    """For clients that ask without reading a page (the pages link the SVG and the ICO)."""
    return redirect(static("games/favicon.ico"))
