"""Password reset by an emailed link, and change of email address (one address per account)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.helpers import PASSWORD, confirm, link_in, log_in, path_of

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another long pass phrase 7"


def test_password_reset_link_sets_a_new_password(
    client: Client, make_player, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player(email="anna@example.test")

    response = client.post(reverse("account_reset_password"), {"email": "anna@example.test"})

    assert response.status_code == 302
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["anna@example.test"]
    # The link leads, by a redirect that hides the key from the address bar, to the form.
    page = client.get(path_of(link_in(mailoutbox[0])), follow=True)
    assert page.status_code == 200
    assert "form" in page.context and page.context["form"] is not None
    form_path = page.redirect_chain[-1][0]

    response = client.post(form_path, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})

    assert response.status_code == 302
    assert response.url == reverse("account_reset_password_from_key_done")
    assert not get_user(client).is_authenticated
    assert log_in(Client(), password=PASSWORD).status_code == 200  # the old one: refused
    fresh = Client()
    assert log_in(fresh, password=NEW_PASSWORD).status_code == 302
    assert get_user(fresh).is_authenticated


def test_password_reset_for_an_unknown_address_reveals_nothing(
    client: Client, db: None, mailoutbox: list[mail.EmailMessage]
) -> None:
    response = client.post(reverse("account_reset_password"), {"email": "nobody@example.test"})

    # Same answer as for a known address; the email says there is no account.
    assert response.status_code == 302
    assert response.url == reverse("account_reset_password_done")
    assert [m.to for m in mailoutbox] == [["nobody@example.test"]]
    assert "/accounts/password/reset/key/" not in mailoutbox[0].body


def test_email_change_adds_an_unverified_address_and_sends_a_verification(
    client: Client, make_player, mailoutbox: list[mail.EmailMessage]
) -> None:
    user = make_player(email="anna@example.test")
    client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")

    response = client.post(
        reverse("account_email"), {"email": "anna.new@example.test", "action_add": ""}
    )

    assert response.status_code == 302
    addresses = {a.email: (a.verified, a.primary) for a in EmailAddress.objects.filter(user=user)}
    assert addresses == {
        "anna@example.test": (True, True),
        "anna.new@example.test": (False, False),
    }
    user.refresh_from_db()
    assert user.email == "anna@example.test"  # until the new one is verified
    assert [m.to for m in mailoutbox] == [["anna.new@example.test"]]

    confirm(client, mailoutbox[0])

    user.refresh_from_db()
    assert user.email == "anna.new@example.test"
    assert list(EmailAddress.objects.filter(user=user).values_list("email", "verified")) == [
        ("anna.new@example.test", True)
    ]
    assert log_in(Client(), email="anna.new@example.test").status_code == 302


def test_email_page_uses_the_site_layout(client: Client, make_player) -> None:
    client.force_login(make_player(), backend="allauth.account.auth_backends.AuthenticationBackend")

    response = client.get(reverse("account_email"))

    assert response.status_code == 200
    names = [t.name for t in response.templates]
    assert "account/email_change.html" in names
    assert "base.html" in names


def test_an_address_of_another_account_cannot_be_taken_over(
    client: Client, make_player, mailoutbox: list[mail.EmailMessage]
) -> None:
    user = make_player(email="anna@example.test", display_name="Anna K")
    bela = make_player(email="bela@example.test", display_name="Béla")
    client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")

    # allauth does not reveal that the address is taken (ACCOUNT_PREVENT_ENUMERATION): it
    # accepts it as pending and mails its owner; even confirming that link changes nothing.
    client.post(reverse("account_email"), {"email": "bela@example.test", "action_add": ""})
    assert [m.to for m in mailoutbox] == [["bela@example.test"]]
    confirm(client, mailoutbox[0])

    assert User.objects.get(pk=user.pk).email == "anna@example.test"
    assert not EmailAddress.objects.filter(user=user, email="bela@example.test", verified=True)
    assert EmailAddress.objects.get(email="bela@example.test", verified=True).user == bela
