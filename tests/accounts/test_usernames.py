"""The username made at sign-up is readable in any script (accounts.adapter, anyascii): it is
in profile links and the API, where "player9" for a Cyrillic name told nobody who it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.helpers import sign_up

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("display_name", "username"),
    [
        ("Иван Петров", "ivan_petrov"),  # Russian
        ("Ёлкин Юрий", "elkin_yuriy"),
        ("Kovács Béla", "kovacs_bela"),  # Hungarian
        ("Őri Ödön", "ori_odon"),
        ("Łukasz Żółć", "lukasz_zolc"),  # Polish: Ł has no decomposition to drop an accent
        ("Jiří Dvořák", "jiri_dvorak"),  # Czech
        ("Γιώργος Παπαδόπουλος", "giorgos_papadopoylos"),  # Greek
        ("王小明", "wangxiaoming"),  # Chinese
        ("Ľubomír Šťastný", "lubomir_stastny"),  # Slovak
    ],
)
def test_a_non_latin_name_gives_a_readable_username(
    mailoutbox: list[mail.EmailMessage], display_name: str, username: str
) -> None:
    sign_up(Client(), email="secret.address@example.test", display_name=display_name)

    user = User.objects.get()
    assert user.username == username
    assert user.display_name == display_name


def test_two_names_that_transliterate_alike_get_two_usernames(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    # Different names (Cyrillic and Latin spelling), one transliteration: "ivan_petrov".
    sign_up(Client(), email="a1@example.test", display_name="Иван Петров")
    sign_up(Client(), email="a2@example.test", display_name="Ivan Petrov")
    sign_up(Client(), email="a3@example.test", display_name="Iván Petrov")

    names = list(User.objects.order_by("pk").values_list("username", flat=True))
    assert names[0] == "ivan_petrov"
    assert len(set(names)) == 3
    assert all(name.startswith("ivan_petrov") for name in names)


def test_a_name_with_nothing_to_transliterate_still_gets_a_username(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    sign_up(Client(), email="a1@example.test", display_name="☺☺")  # emoji: anyascii names them
    sign_up(Client(), email="a2@example.test", display_name="🎲🎲")

    usernames = list(User.objects.values_list("username", flat=True))
    assert len(set(usernames)) == 2
    assert all(name and name.isascii() and "@" not in name for name in usernames)


def test_the_profile_link_uses_the_transliterated_username(
    client: Client, mailoutbox: list[mail.EmailMessage], make_player: Callable[..., Any]
) -> None:
    sign_up(Client(), email="ivan@example.test", display_name="Иван Петров")
    user = User.objects.get()

    response = client.get(reverse("player_profile", args=[user.username]))

    assert response.status_code == 200
    assert "Иван Петров" in response.content.decode()


def test_an_existing_username_is_kept(make_player: Callable[..., Any]) -> None:
    user = make_player(email="old@example.test", display_name="Сергей")
    User.objects.filter(pk=user.pk).update(username="player9")
    user.refresh_from_db()
    user.display_name = "Сергей Иванов"
    user.save()

    user.refresh_from_db()
    assert user.username == "player9"
