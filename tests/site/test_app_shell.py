"""The site installable as an app (keltis_site/app_shell.py): the web app manifest in the
visitor's language, its icons, the links on every page, the offline page, and a service worker
that keeps that page and its files and nothing else (tests/browser/test_installable.py watches
a browser install it and go offline)."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse
from django.utils import translation

from keltis_site import app_shell

pytestmark = pytest.mark.django_db

BASE_HTML = Path(settings.BASE_DIR) / "templates" / "base.html"


def png_size(static_url: str) -> tuple[int, int]:
    """Width and height from a static PNG's header (IHDR, the first chunk)."""
    path = finders.find(static_url.removeprefix(settings.STATIC_URL).removeprefix("/static/"))
    assert path is not None, static_url
    head = Path(path).read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", static_url
    return struct.unpack(">II", head[16:24])


def manifest(client: Client) -> dict[str, Any]:
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/manifest+json"
    return json.loads(answer.content)


def worker(client: Client) -> str:
    answer = client.get(reverse("service_worker"))
    assert answer.status_code == 200
    return answer.content.decode()


def precached(script: str) -> list[str]:
    found = re.search(r"^const PRECACHE = (\[.*\]);$", script, re.MULTILINE)
    assert found, "the worker names what it keeps"
    return json.loads(found.group(1))


# -- the manifest ----------------------------------------------------------------------------
def test_the_manifest_opens_the_site_on_my_games_as_an_app() -> None:
    found = manifest(Client(HTTP_ACCEPT_LANGUAGE="en"))

    assert found["name"] == "Keltis by mail"
    assert found["short_name"] == "Keltis"
    assert found["start_url"] == reverse("my_games") == "/games/mine/"
    assert (found["scope"], found["display"], found["id"]) == ("/", "standalone", "/")
    assert found["lang"] == "en" and found["dir"] == "ltr"
    assert found["description"].startswith("Play Keltis")
    assert [shortcut["url"] for shortcut in found["shortcuts"]] == [
        reverse("lobby"),
        reverse("game_create"),
    ]


@pytest.mark.parametrize("language", ["hu", "ru", "de"])
def test_the_manifest_speaks_the_visitors_language(language: str) -> None:
    found = manifest(Client(HTTP_ACCEPT_LANGUAGE=language))

    assert found["lang"] == language
    with translation.override(language):
        assert found["description"] == translation.gettext(
            "Play Keltis, Reiner Knizia's board game, or its card game by email, at your own "
            "pace: the site emails you when it is your turn."
        )
        assert found["shortcuts"][0]["name"] == translation.gettext("Lobby")
    assert found["description"] != manifest(Client(HTTP_ACCEPT_LANGUAGE="en"))["description"]


def test_the_manifest_follows_a_players_saved_language(make_user: Any) -> None:
    """The page links it with crossorigin="use-credentials": the browser sends the cookies."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(language="pl"))

    assert manifest(client)["lang"] == "pl"


def test_the_manifests_icons_are_pngs_of_the_stated_size() -> None:
    icons = manifest(Client())["icons"]

    for icon in icons:
        width, height = png_size(icon["src"])
        assert icon["sizes"] == f"{width}x{height}" and icon["type"] == "image/png", icon
    stated = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= stated


def test_the_manifests_colours_are_the_sites() -> None:
    """The title bar the colour of the header, the splash screen that of the page."""
    css = finders.find("games/site.css")
    assert css is not None
    variables = dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-f]{6});", Path(css).read_text()))
    found = manifest(Client())

    assert found["theme_color"] == variables["--accent-dark"] == app_shell.THEME_COLOR
    assert found["background_color"] == variables["--bg"] == app_shell.BACKGROUND_COLOR


def test_the_start_url_asks_a_visitor_to_log_in_and_shows_a_player_their_games(
    make_user: Any,
) -> None:
    start = manifest(Client())["start_url"]
    visitor = Client().get(start)
    assert visitor.status_code == 302 and "/accounts/login/" in visitor["Location"]

    player = Client()
    player.force_login(make_user())
    assert player.get(start).status_code == 200


def test_the_content_security_policy_lets_the_manifest_and_the_worker_load() -> None:
    """manifest-src and worker-src fall back to default-src 'self' (keltis_site/settings.py)."""
    policy = Client().get(reverse("home"))["Content-Security-Policy"]

    assert "default-src 'self'" in policy
    assert "manifest-src" not in policy and "worker-src" not in policy
    assert "child-src" not in policy and "script-src 'self'" in policy


# -- the links on every page -----------------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/games/", "/accounts/login/"])
def test_every_page_links_the_manifest_the_theme_colour_and_the_worker(path: str) -> None:
    page = Client().get(path).content.decode()

    assert '<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials">' in (
        page
    )
    assert f'<meta name="theme-color" content="{app_shell.THEME_COLOR}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page)
    assert touch and png_size(touch.group(1)) == (180, 180)
    assert re.search(r'<script src="[^"]+/app_shell\.js" data-worker="/sw\.js" defer>', page)


def test_base_html_states_the_same_theme_colour() -> None:
    assert f'content="{app_shell.THEME_COLOR}"' in BASE_HTML.read_text()


# -- the offline page ------------------------------------------------------------------------
def test_the_offline_page_is_in_the_visitors_language() -> None:
    answer = Client(HTTP_ACCEPT_LANGUAGE="ru").get(reverse("offline"))

    assert answer.status_code == 200
    page = answer.content.decode()
    assert '<html lang="ru">' in page
    with translation.override("ru"):
        assert translation.gettext("No connection") in page
        assert translation.gettext("Try again") in page
    assert "No connection" not in page


def test_the_offline_page_holds_nothing_of_the_visitor(make_user: Any) -> None:
    """The worker keeps it for whoever uses the browser next."""
    client = Client()
    player = make_user("offline-anna")
    client.force_login(player)
    page = client.get(reverse("offline")).content.decode()

    assert "offline-anna" not in page and player.email not in page
    assert "csrfmiddlewaretoken" not in page and "<form" not in page
    assert "<script" not in page  # nothing to run, nothing the worker does not keep


def test_the_offline_page_needs_only_what_the_worker_keeps() -> None:
    page = Client().get(reverse("offline")).content.decode()
    loaded = re.findall(r'<link rel="[^"]*(?:stylesheet|icon)[^"]*" href="([^"]+)"', page)

    assert loaded and set(loaded) <= set(app_shell.precache())


# -- the service worker ----------------------------------------------------------------------
def test_the_worker_keeps_the_offline_page_and_its_files_only() -> None:
    script = worker(Client())

    assert precached(script) == app_shell.precache()
    assert precached(script)[0] == reverse("offline") == "/offline/"
    assert f'const OFFLINE_URL = "{reverse("offline")}";' in script
    # nothing is stored while pages are used: the install's addAll is the only write
    assert "cache.put" not in script and ".put(" not in script
    assert script.count("addAll(") == 1
    # a failed navigation gets the offline page; anything that is not GET is left alone
    assert 'request.mode === "navigate"' in script
    assert "caches.match(OFFLINE_URL" in script
    assert 'request.method !== "GET") return' in script


def test_the_worker_still_shows_push_messages() -> None:
    script = worker(Client())

    assert 'addEventListener("push"' in script and "showNotification" in script
    assert 'addEventListener("notificationclick"' in script


def test_a_new_language_makes_a_new_worker_and_cache() -> None:
    """A byte of difference makes the browser install the worker again, which fetches the
    offline page in the player's new language into a cache of a new name."""

    def cache_name(language: str) -> str:
        script = worker(Client(HTTP_ACCEPT_LANGUAGE=language))
        found = re.search(r'^const CACHE = "(keltis-offline-[0-9a-f]+)";$', script, re.MULTILINE)
        assert found
        return found.group(1)

    assert cache_name("de") == cache_name("de")
    assert cache_name("de") != cache_name("cs")
