"""The site as an installable app: its web app manifest, its offline page, and what the
service worker needs to show that page when the network is gone.

These are the site's, not one app's: the manifest names the whole site and opens on "my
games", and the offline page stands in for any page. So they live here, beside robots.txt and
the favicon (site_files.py). The service worker itself stays in notifications
(notifications/views/channels.py serves templates/notifications/sw.js at /sw.js), where it was
born for Web Push; its view asks worker_context() below what to precache.

What the worker may keep (tests/site/test_app_shell.py holds it to this): the offline page
and the static files it needs, nothing else. A cached game page could show an old hand or
take a move against an old position, and a player's pages are personal (private_pages.py):
every other request goes to the network, and a navigation that fails gets the offline page.

The icons are PNG files drawn once from the favicon by ``scripts/app-icons`` and committed
(games/static/games/): whitenoise serves them with the other static files, hashed and cached
for ever, and nothing draws images at run time.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, get_language_bidi, gettext
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_cookie

#: games/static/games/site.css: --accent-dark (the header), --bg (the page)
THEME_COLOR = "#184a28"
BACKGROUND_COLOR = "#f8f7f1"
#: (static path, size in px, purpose); scripts/app-icons draws them from favicon.svg
ICONS = [
    ("games/app-icon-192.png", 192, "any"),
    ("games/app-icon-512.png", 512, "any"),
    ("games/app-icon-maskable-512.png", 512, "maskable"),
]
APPLE_TOUCH_ICON = "games/apple-touch-icon.png"
#: what the offline page loads; the worker keeps these and the page itself
OFFLINE_STATIC = ["games/site.css", "games/favicon.svg"]
#: every cache the worker makes starts so; it deletes the old ones when a new one takes over
CACHE_PREFIX = "keltis-offline-"


def manifest(language_code: str) -> dict[str, Any]:
    """The web app manifest, in the active language (``language_code`` names it)."""
    return {
        "id": "/",
        "name": "Keltis by mail",
        # a proper name, written alike in all seven languages (the catalogues keep "Keltis")
        "short_name": "Keltis",
        "description": gettext(
            "Play Keltis, Reiner Knizia's board game, or its card game by email, at your own "
            "pace: the site emails you when it is your turn."
        ),
        "lang": language_code,
        "dir": "rtl" if get_language_bidi() else "ltr",
        # a visitor not logged in is sent to the login page, and from there back here
        "start_url": reverse("my_games"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "categories": ["games"],
        "icons": [
            {
                "src": static(path),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for path, size, purpose in ICONS
        ],
        "shortcuts": [
            {"name": gettext("Lobby"), "url": reverse("lobby")},
            {"name": gettext("New game"), "url": reverse("game_create")},
        ],
    }


@require_GET
@cache_control(max_age=3600)
@vary_on_cookie  # the language menu's cookie or the player's own language choose the words
def web_manifest(request: HttpRequest) -> HttpResponse:
    return JsonResponse(
        manifest(get_language()),
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False, "indent": 2},
    )


@require_GET
@cache_control(no_cache=True)  # the worker fetches it afresh whenever it installs
def offline(request: HttpRequest) -> HttpResponse:
    """The page shown when a page cannot be loaded. It stands alone (not base.html): the
    worker keeps it, so it holds nothing of the visitor (no name, no CSRF token)."""
    return render(request, "offline.html")


def precache() -> list[str]:
    """The addresses the worker keeps: the offline page and its static files."""
    return [reverse("offline"), *(static(path) for path in OFFLINE_STATIC)]


def worker_context() -> dict[str, Any]:
    """The service worker's settings (templates/notifications/sw.js), in the active language.

    The cache's name changes with the offline page's text and the static files' addresses
    (hashed in production), so a new deploy or another language makes the worker's script
    differ by a byte: the browser installs it again and it fetches the new offline page.
    """
    urls = precache()
    page = render_to_string("offline.html")
    digest = hashlib.sha256("\n".join([get_language(), *urls, page]).encode()).hexdigest()
    values = {
        "offline_url": reverse("offline"),
        "precache": urls,
        "cache_prefix": CACHE_PREFIX,
        "cache_name": CACHE_PREFIX + digest[:16],
    }
    # JavaScript literals (JSON), not HTML: the template's autoescaping would spoil the quotes
    return {name: mark_safe(json.dumps(value)) for name, value in values.items()}
