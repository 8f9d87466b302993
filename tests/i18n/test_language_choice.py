"""Which language a page is in: the browser's, the language menu's, the saved profile's."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from accounts.models import User

pytestmark = pytest.mark.django_db


def lang_of(response: Any) -> str:
    body = response.content.decode()
    start = body.index('<html lang="') + len('<html lang="')
    return body[start : body.index('"', start)]


def make_player(language: str = "en") -> User:
    return User.objects.create_user(
        username="gracz", email="gracz@example.test", password="a long pass phrase",
        display_name="Gracz", language=language,
    )


def test_a_visitor_gets_the_browsers_language(client: Client) -> None:
    response = client.get("/", headers={"accept-language": "pl-PL,pl;q=0.9,en;q=0.5"})
    assert lang_of(response) == "pl"
    assert response.headers["Content-Language"] == "pl"
    with translation.override("pl"):
        assert translation.gettext("My games") in response.content.decode()


def test_an_unshipped_browser_language_falls_back_to_english(client: Client) -> None:
    assert lang_of(client.get("/", headers={"accept-language": "fr"})) == "en"


def test_the_language_menu_sets_a_cookie_for_visitors_and_goes_back(client: Client) -> None:
    response = client.post("/accounts/language/", {"language": "cs", "next": "/rules/"})
    assert response.status_code == 302 and response.url == "/rules/"
    assert response.cookies["django_language"].value == "cs"
    page = client.get("/rules/", headers={"accept-language": "de"})
    assert lang_of(page) == "cs"  # the choice beats the browser


def test_the_language_menu_refuses_a_foreign_next_and_an_unknown_language(
    client: Client,
) -> None:
    response = client.post(
        "/accounts/language/", {"language": "xx", "next": "https://evil.example/"}
    )
    assert response.status_code == 302 and response.url == "/"
    assert "django_language" not in response.cookies
    assert client.get("/accounts/language/").status_code == 405


def test_the_language_menu_saves_a_players_choice_on_the_profile(client: Client) -> None:
    player = make_player()
    client.force_login(player)
    client.post("/accounts/language/", {"language": "ru", "next": "/"})
    player.refresh_from_db()
    assert player.language == "ru"


def test_a_players_saved_language_wins_over_browser_and_cookie(client: Client) -> None:
    player = make_player("sk")
    client.force_login(player)
    client.cookies["django_language"] = "de"
    assert lang_of(client.get("/games/", headers={"accept-language": "hu"})) == "sk"


def test_the_settings_page_changes_the_language_and_confirms_in_it(client: Client) -> None:
    player = make_player("en")
    client.force_login(player)
    response = client.post(
        "/accounts/settings/",
        {"display_name": "Gracz", "time_zone": "Europe/Warsaw", "language": "pl"},
        follow=True,
    )
    player.refresh_from_db()
    assert player.language == "pl"
    assert lang_of(response) == "pl"
    with translation.override("pl"):
        assert translation.gettext("Your settings are saved.") in response.content.decode()


def test_sign_up_saves_the_language_the_page_was_in_and_mails_in_it(
    client: Client, settings: Any
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    response = client.post(
        "/accounts/signup/",
        {
            "display_name": "Jatekos",
            "email": "jatekos@example.test",
            "password1": "a long pass phrase",
            "password2": "a long pass phrase",
        },
        headers={"accept-language": "hu"},
    )
    assert response.status_code == 302
    user = User.objects.get(email="jatekos@example.test")
    assert user.language == "hu"
    [message] = mail.outbox
    with translation.override("hu"):
        subject = translation.gettext("Confirm your email address")
    assert subject != "Confirm your email address"
    assert subject in message.subject
