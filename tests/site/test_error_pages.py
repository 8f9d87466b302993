"""The site's own error pages: 400, 403 (and the CSRF failure), 404, 429 and 500, in the
site's look and the visitor's language, never Django's debug pages or bare text."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import translation

from keltis_site import urls

#: what the site's frame shows on every page (base.html), and the error page's own look
SITE_FRAME = ['class="site-header"', "games/site.css", 'class="error-page"']


def page(response: Any) -> str:
    return response.content.decode()


def in_site_look(html: str, language: str) -> None:
    assert f'<html lang="{language}">' in html
    for mark in SITE_FRAME:
        assert mark in html, mark
    # none of Django's own pages
    assert "Django" not in html
    assert "URLconf" not in html


@override_settings(DEBUG=False)
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading"),
    [("en", "Page not found"), ("hu", "Az oldal nem található"), ("de", "Seite nicht gefunden")],
)
def test_a_404_is_the_sites_page_in_the_visitors_language(language: str, heading: str) -> None:
    response = Client(HTTP_ACCEPT_LANGUAGE=language).get("/no-such-page/")

    assert response.status_code == 404
    html = page(response)
    in_site_look(html, language)
    assert heading in html
    assert [t.name for t in response.templates][:3] == ["404.html", "_error_page.html", "base.html"]
    # the site's menu is there, with its links: the way on from a dead link
    assert f'href="{reverse("lobby")}"' in html
    assert '<meta name="robots" content="noindex">' in html


@override_settings(DEBUG=False)
@pytest.mark.django_db
def test_a_403_is_the_sites_page(client: Client, make_user: Any) -> None:
    client.force_login(make_user(language="pl"))  # not staff: may not open a league

    response = client.get(reverse("league_create"))

    assert response.status_code == 403
    html = page(response)
    in_site_look(html, "pl")
    assert "Brak dostępu" in html


@override_settings(DEBUG=False)
@pytest.mark.django_db
def test_a_form_without_its_csrf_token_gets_the_sites_page() -> None:
    browser = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="cs")

    response = browser.post(reverse("account_login"), {"login": "a@b.example", "password": "x"})

    assert response.status_code == 403
    html = page(response)
    in_site_look(html, "cs")
    assert "Formulář se nepodařilo odeslat" in html
    assert "CSRF" not in html


@override_settings(DEBUG=True)
@pytest.mark.django_db
def test_with_debug_the_csrf_page_also_names_the_reason_for_the_developer() -> None:
    browser = Client(enforce_csrf_checks=True)

    response = browser.post(reverse("account_login"), {"login": "a@b.example", "password": "x"})

    assert response.status_code == 403
    assert "403_csrf.html" in [t.name for t in response.templates]
    assert "CSRF cookie not set." in page(response)


@override_settings(DEBUG=False)
@pytest.mark.django_db
def test_a_bad_request_is_the_sites_page() -> None:
    """A Host header the site does not answer to is refused with the site's 400 page."""
    response = Client(HTTP_ACCEPT_LANGUAGE="sk").get("/", HTTP_HOST="elsewhere.example")

    assert response.status_code == 400
    html = page(response)
    in_site_look(html, "sk")
    assert "Chybná požiadavka" in html


@override_settings(DEBUG=False)
@pytest.mark.django_db
def test_a_server_error_is_the_sites_page_in_the_visitors_language(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**kwargs: Any) -> int:
        raise RuntimeError("the database is gone")

    monkeypatch.setattr("games.listings.user_turn_count", broken)
    client = Client(raise_request_exception=False)
    client.force_login(make_user(language="ru"))  # a player's saved language wins

    response = client.get(reverse("home"))

    assert response.status_code == 500
    html = page(response)
    in_site_look(html, "ru")
    assert "Что-то пошло не так" in html
    assert "the database is gone" not in html


def test_the_500_page_needs_neither_a_request_context_nor_the_database() -> None:
    """No database here (no django_db mark: a query would fail the test), no user, no session:
    only the language that was active when the error happened."""
    assert getattr(urls, "handler500", None) == "keltis_site.errors.server_error"
    from keltis_site import errors

    request = RequestFactory().get("/")
    request.user = AnonymousUser()

    with translation.override("hu"):
        response = errors.server_error(request)

    assert response.status_code == 500
    html = page(response)
    in_site_look(html, "hu")
    assert "Valami hiba történt" in html


@override_settings(DEBUG=False, ACTION_RATE_LIMIT="1/m")
@pytest.mark.django_db
def test_an_action_past_the_rate_limit_gets_the_sites_429_page_in_the_visitors_language() -> None:
    """Emailed links are opened without logging in: the page follows the browser's language."""
    browser = Client(HTTP_ACCEPT_LANGUAGE="hu")
    path = reverse("email_action", args=["forged"])
    with time_machine.travel(dt.datetime(2030, 1, 1, 12, 0, 5, tzinfo=dt.UTC), tick=False):
        assert browser.post(path).status_code == 400  # counted, then refused as forged
        response = browser.post(path)

    assert response.status_code == 429
    html = page(response)
    in_site_look(html, "hu")
    assert "Túl sok művelet rövid idő alatt: semmi sem változott." in html
