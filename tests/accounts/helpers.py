"""Steps of the account flows as a browser takes them, shared by the accounts tests."""

from __future__ import annotations

import re

from django.core import mail
from django.test import Client
from django.urls import reverse

PASSWORD = "a long pass phrase 42"

_LINK = re.compile(r"https?://\S+")


def sign_up(
    client: Client,
    email: str = "anna@example.test",
    display_name: str = "Anna K",
    password: str = PASSWORD,
    **fields: str,
):
    """Post the sign-up form; ``fields`` adds more of its fields (the hidden time zone)."""
    return client.post(
        reverse("account_signup"),
        {
            "email": email,
            "display_name": display_name,
            "password1": password,
            "password2": password,
            **fields,
        },
    )


def log_in(
    client: Client, email: str = "anna@example.test", password: str = PASSWORD, **extra: str
):
    """Post the login form; ``extra`` sets request headers, e.g. REMOTE_ADDR (the client IP)."""
    return client.post(reverse("account_login"), {"login": email, "password": password}, **extra)


def link_in(message: mail.EmailMessage) -> str:
    """The one link of an email, as the player would click it."""
    links = _LINK.findall(message.body)
    assert len(links) == 1, message.body
    return links[0]


def path_of(link: str) -> str:
    """The path of an absolute link from an email (the test client takes paths)."""
    return re.sub(r"^https?://[^/]+", "", link)


def confirm(client: Client, message: mail.EmailMessage):
    """Follow a verification email's link and press the confirm button."""
    path = path_of(link_in(message))
    page = client.get(path)
    assert page.status_code == 200
    return client.post(path)
