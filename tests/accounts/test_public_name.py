"""What other players see of an account is its display name, never the email address."""

from __future__ import annotations

import pytest
from allauth.account.utils import user_display
from django.core import mail
from django.test import Client

from accounts.models import User
from tests.accounts.helpers import confirm, log_in, sign_up

pytestmark = pytest.mark.django_db


def test_a_new_players_public_name_is_the_display_name(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(client, email="anna.kovacs@example.test", display_name="Anna K")

    user = User.objects.get()
    assert user.public_name == "Anna K"
    assert str(user) == "Anna K"
    assert user_display(user) == "Anna K"


@pytest.mark.parametrize(
    ("display_name", "username"),
    [("Anna K", "anna_k"), ("Kovács Béla", "kovacs_bela"), ("Иван Петров", "ivan_petrov")],
)
def test_the_username_comes_from_the_display_name_not_the_email(
    client: Client, mailoutbox: list[mail.EmailMessage], display_name: str, username: str
) -> None:
    # The username is in public links (player profiles) and is public_name's fallback.
    sign_up(client, email="secret.address@example.test", display_name=display_name)

    user = User.objects.get()
    assert user.username == username
    assert "secret" not in user.username


def test_usernames_stay_unique_for_display_names_that_make_the_same_one(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    # Equal display names are refused (test_display_names); these two differ, yet both
    # make the username "anna_k".
    sign_up(Client(), email="a1@example.test", display_name="Anna K")
    sign_up(Client(), email="a2@example.test", display_name="Anna_K")

    names = list(User.objects.order_by("pk").values_list("username", flat=True))
    assert names[0] == "anna_k"
    assert names[1].startswith("anna_k") and names[1] != names[0]


def test_pages_after_login_greet_by_display_name(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(Client(), email="anna.kovacs@example.test", display_name="Anna K")
    confirm(Client(), mailoutbox[0])

    response = log_in(client, email="anna.kovacs@example.test")
    page = client.get(response.url)

    html = page.content.decode()
    assert "Successfully signed in as Anna K." in html
    assert "anna.kovacs" not in html
