"""Account emails are the site's: confirming logs in, and the verification and password
emails have a text and an HTML part, the site's name, the headers of the turn emails and the
recipient's language."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.helpers import confirm, sign_up

pytestmark = pytest.mark.django_db

SITE_URL = "https://keltis.example"


@pytest.fixture(autouse=True)
def _site(settings: Any) -> None:
    settings.SITE_URL = SITE_URL


def html_of(message: mail.EmailMessage) -> str:
    assert isinstance(message, mail.EmailMultiAlternatives)
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return str(html)


# -- confirming logs in -----------------------------------------------------------------------
def test_confirming_in_the_browser_that_signed_up_logs_the_player_in(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)

    response = confirm(client, mailoutbox[0])

    assert response.status_code == 302
    user = get_user(client)
    assert user.is_authenticated
    assert user == User.objects.get(email="anna@example.test")


def test_a_link_opened_in_another_browser_confirms_but_logs_nobody_in(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    """Whoever holds the link (a mail scanner, a forwarded email) gets no session."""
    sign_up(client)
    elsewhere = Client()

    confirm(elsewhere, mailoutbox[0])

    assert User.objects.get().emailaddress_set.get().verified
    assert not get_user(elsewhere).is_authenticated
    assert not get_user(client).is_authenticated


def test_opening_the_link_without_pressing_the_button_logs_nobody_in(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)
    path = mailoutbox[0].body.split(SITE_URL, 1)[1].split()[0]

    assert client.get(path).status_code == 200

    assert not get_user(client).is_authenticated
    assert not User.objects.get().emailaddress_set.get().verified


# -- the emails look and behave like the site's other emails ------------------------------------
def test_the_verification_email_is_the_sites_with_text_html_and_the_turn_emails_headers(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client, display_name="Anna K")

    [message] = mailoutbox
    html = html_of(message)
    assert message.subject == "[Keltis by mail] Confirm your email address"
    for part in (message.body, html):
        assert "Keltis by mail" in part
        assert "Anna K" in part
        assert "testserver" not in part  # the host the request named
        assert f"{SITE_URL}/accounts/confirm-email/" in part
    assert html.startswith("<!doctype html>")
    assert '<html lang="en">' in html
    headers = message.extra_headers
    assert headers["Message-ID"].startswith("<account.")
    assert headers["Message-ID"].endswith("@keltis.example>")
    assert headers["Auto-Submitted"] == "auto-generated"
    assert headers["X-Auto-Response-Suppress"] == "All"
    assert headers["Content-Language"] == "en"
    # nobody unsubscribes from the answer to their own request
    assert "List-Unsubscribe" not in headers


def test_each_email_has_a_message_id_of_its_own(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)
    client.post(reverse("account_email"), {"action_send": "", "email": "anna@example.test"})
    Client().post(reverse("account_reset_password"), {"email": "nobody@example.test"})

    ids = [m.extra_headers["Message-ID"] for m in mailoutbox]
    assert len(ids) >= 2
    assert len(set(ids)) == len(ids)


def test_the_sign_up_email_is_in_the_language_of_the_sign_up_page(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    sign_up(Client(HTTP_ACCEPT_LANGUAGE="hu"))

    [message] = mailoutbox
    assert message.subject == "[Keltis by mail] Erősítsd meg az e-mail-címedet"
    assert "Üdv a Keltis by mail oldalon!" in message.body
    assert '<html lang="hu">' in html_of(message)
    assert message.extra_headers["Content-Language"] == "hu"


def test_a_password_reset_is_in_the_players_language_whatever_the_page(
    make_player: Any, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player(language="pl")

    Client(HTTP_ACCEPT_LANGUAGE="en").post(
        reverse("account_reset_password"), {"email": "anna@example.test"}
    )

    [message] = mailoutbox
    assert message.subject == "[Keltis by mail] Ustaw nowe hasło"
    assert message.body.startswith("Cześć Anna K,")
    assert f"{SITE_URL}/accounts/password/reset/key/" in message.body
    assert f"{SITE_URL}/accounts/password/reset/key/" in html_of(message)
    assert message.extra_headers["Content-Language"] == "pl"


def test_an_address_without_an_account_is_answered_in_the_pages_language(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    Client(HTTP_ACCEPT_LANGUAGE="de").post(
        reverse("account_reset_password"), {"email": "nobody@example.test"}
    )

    [message] = mailoutbox
    assert message.subject == "[Keltis by mail] Kein Konto nutzt diese Adresse"
    assert message.body.startswith("Hallo,")
    assert f"{SITE_URL}/accounts/signup/" in html_of(message)
    assert message.extra_headers["Content-Language"] == "de"
