"""Sign-up by email, display name and password; verification by the emailed link; login."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.helpers import PASSWORD, confirm, link_in, log_in, path_of, sign_up

pytestmark = pytest.mark.django_db


def test_signup_form_asks_email_display_name_and_password_twice(client: Client) -> None:
    response = client.get(reverse("account_signup"))

    form = response.context["form"]
    # and a hidden time zone, which the browser fills (test_signup_time_zone.py)
    assert list(form.fields) == ["email", "display_name", "password1", "password2", "time_zone"]
    assert [field.name for field in form.visible_fields()] == list(form.fields)[:4]
    assert "base.html" in [t.name for t in response.templates]


def test_signup_creates_an_unverified_player_and_emails_a_link(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    response = sign_up(client, email="Anna@Example.test", display_name="  Anna K ")

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    user = User.objects.get()
    assert (user.email, user.display_name) == ("anna@example.test", "Anna K")
    assert user.check_password(PASSWORD)
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.verified, address.primary) == (
        "anna@example.test",
        False,
        True,
    )
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["anna@example.test"]
    assert message.subject.startswith("[Keltis by mail] ")
    assert path_of(link_in(message)).startswith("/accounts/confirm-email/")
    assert "Anna K" in message.body
    assert not get_user(client).is_authenticated


def test_login_before_verification_is_refused(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)

    response = log_in(client)

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    assert not get_user(client).is_authenticated


def test_opening_the_link_does_not_verify_posting_the_page_does(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)
    path = path_of(link_in(mailoutbox[0]))

    page = client.get(path)

    assert page.status_code == 200
    assert "base.html" in [t.name for t in page.templates]
    assert not EmailAddress.objects.get().verified

    response = client.post(path)

    assert response.status_code == 302
    assert EmailAddress.objects.get().verified


def test_after_verification_login_works(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client)
    # The link may be opened anywhere, e.g. in the mail program on a phone.
    confirm(Client(), mailoutbox[0])

    response = log_in(client, email="ANNA@example.test")

    assert response.status_code == 302
    assert response.url == "/"
    user = get_user(client)
    assert user.is_authenticated
    assert user == User.objects.get(email="anna@example.test")


def test_wrong_password_is_refused(client: Client, make_player) -> None:
    make_player()

    response = log_in(client, password="not the password")

    assert response.status_code == 200
    assert response.context["form"].errors
    assert not get_user(client).is_authenticated


def test_a_bad_link_verifies_nothing(client: Client, mailoutbox: list[mail.EmailMessage]) -> None:
    sign_up(client)

    response = client.post(reverse("account_confirm_email", args=["not-a-key"]))

    assert response.status_code in (200, 404)
    assert not EmailAddress.objects.get().verified


@pytest.mark.parametrize(
    ("display_name", "field_error"),
    [
        ("", "required"),
        ("A", "length"),
        ("x" * 41, "length"),
        ("anna@example.test", "email"),
    ],
)
def test_signup_needs_a_display_name_of_2_to_40_characters(
    client: Client, mailoutbox: list[mail.EmailMessage], display_name: str, field_error: str
) -> None:
    response = sign_up(client, display_name=display_name)

    assert response.status_code == 200
    codes = [e.code for e in response.context["form"].errors.as_data()["display_name"]]
    assert codes == [field_error]
    assert not User.objects.exists()
    assert mailoutbox == []


def test_signup_with_a_taken_address_makes_no_second_account(
    client: Client, make_player, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player(email="anna@example.test")

    response = sign_up(client, email="ANNA@example.test", display_name="Someone Else")

    # The page does not tell whether the address has an account; the owner gets an email.
    assert response.status_code == 302
    assert User.objects.count() == 1
    assert [m.to for m in mailoutbox] == [["anna@example.test"]]


def test_logout_is_by_post(client: Client, make_player) -> None:
    client.force_login(make_player(), backend="allauth.account.auth_backends.AuthenticationBackend")

    page = client.get(reverse("account_logout"))

    assert page.status_code == 200
    assert get_user(client).is_authenticated

    response = client.post(reverse("account_logout"))

    assert response.status_code == 302
    assert response.url == "/"
    assert not get_user(client).is_authenticated
