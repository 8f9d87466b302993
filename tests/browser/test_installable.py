"""The site installs as an app in a real Chromium: the manifest is fetched and valid, the
service worker registers on any page, keeps the offline page and its files (and nothing a
player sees), and answers a page that cannot be loaded with the offline page.

"Offline" is Playwright's context.set_offline(True): Chromium applies it to the service
worker's own requests too (Playwright routes and throttles a worker's network in Chromium).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from accounts.models import User
from games.services import game_create
from keltis_site import app_shell
from tests.browser.page_checkers import SQLITE_RUN_ONLY, axe_violations, html_errors

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

#: the active worker controls the page once it has claimed it (sw.js: clients.claim())
CONTROLLED = "() => navigator.serviceWorker.controller !== null"
KEPT = """async () => {
  const found = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) found.push(new URL(request.url).pathname);
  }
  return found.sort();
}"""


@pytest.fixture
def context(browser: Any) -> Any:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, extra_http_headers={"Accept-Language": "de"}
    )
    context.set_default_timeout(15_000)
    yield context
    context.close()


def log_in(context: Any, base: str, user: User) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])


def test_the_manifest_is_fetched_and_valid(live_server: Any, context: Any) -> None:
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.wait_for_function(CONTROLLED)
    session = context.new_cdp_session(page)

    found = session.send("Page.getAppManifest")  # as Chromium read it, with its complaints

    assert found["url"] == live_server.url + "/manifest.webmanifest"
    assert found["errors"] == [], found["errors"]
    parsed = found["manifest"]
    assert parsed["startUrl"] == live_server.url + "/games/mine/"
    assert parsed["scope"] == live_server.url + "/"
    assert parsed["display"] == "kStandalone"
    assert parsed["themeColor"] == "rgba(24,74,40,1)"
    assert {icon["sizes"] for icon in parsed["icons"]} == {"192x192", "512x512"}
    with translation.override("de"):  # the browser's language (Accept-Language)
        assert parsed["shortcuts"][1]["name"] == translation.gettext("New game") != "New game"
    # what keeps Chromium from offering to install it: only that a test's context is private
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors] in ([], ["in-incognito"]), errors


def test_the_worker_registers_and_keeps_only_the_offline_page_and_its_files(
    live_server: Any, context: Any
) -> None:
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.wait_for_function(CONTROLLED)
    # a player's pages pass through the worker (their game, its API answer): none is kept
    anna = User.objects.create_user("anna", "anna@example.test", "x" * 20)
    game = game_create(creator=anna, kind="keltis", player_count=2)
    log_in(context, live_server.url, anna)
    for path in ["/games/mine/", f"/games/{game.pk}/", f"/api/v1/games/{game.pk}/", "/"]:
        page.goto(live_server.url + path)

    assert page.evaluate(KEPT) == sorted(app_shell.precache())


def test_a_page_that_cannot_load_shows_the_offline_page(live_server: Any, context: Any) -> None:
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.wait_for_function(CONTROLLED)

    context.set_offline(True)
    page.goto(live_server.url + "/games/")

    with translation.override("de"):
        assert page.locator("h1").inner_text() == translation.gettext("No connection")
    assert page.url == live_server.url + "/games/"  # in place of the page asked for
    # the site's look, from the kept stylesheet
    header = page.locator(".site-header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header == "rgb(24, 74, 40)"

    context.set_offline(False)
    with translation.override("de"):
        page.get_by_role("link", name=translation.gettext("Try again")).click()
        page.wait_for_load_state("load")
        assert page.locator("h1").inner_text() != translation.gettext("No connection")
    assert page.url == live_server.url + "/games/"


def test_the_offline_page_meets_the_sites_standards(live_server: Any, browser: Any) -> None:
    """As test_page_standards holds every page: valid HTML in all seven languages, and no
    serious axe finding as it is shown, offline, at a phone's width."""
    documents = {
        language: Client(HTTP_ACCEPT_LANGUAGE=language).get("/offline/").content
        for language, _ in settings.LANGUAGES
    }
    errors = html_errors(documents)
    assert not any(errors.values()), errors

    context = browser.new_context(viewport={"width": 360, "height": 740}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/")
        page.wait_for_function(CONTROLLED)
        context.set_offline(True)
        page.goto(live_server.url + "/games/mine/")
        assert page.locator("h1").inner_text() == "No connection"
        assert axe_violations(page) == []
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360
    finally:
        context.close()
