"""Sign-up with an address that has an account does the same work as with a new one, so the
answer's time does not tell an attacker which addresses are registered (the page and the
redirect were the same already: ACCOUNT_PREVENT_ENUMERATION). Work is counted, not timed: the
password hashes made and the emails sent before the response."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.http import HttpRequest, HttpResponse
from django.test import Client

from accounts.models import User
from tests.accounts.helpers import sign_up

pytestmark = pytest.mark.django_db


class CountingHasher(MD5PasswordHasher):
    """Django's MD5 hasher (the tests' fast one) that counts the passwords it hashes."""

    hashed: ClassVar[int] = 0

    def encode(self, password: str, salt: str) -> str:
        type(self).hashed += 1
        return super().encode(password, salt)


class MailsAtResponse:
    """Outermost middleware: notes how many emails exist when the response leaves the view
    stack (emails sent after the response, as the WSGI server closes it, come later)."""

    seen: ClassVar[list[int]] = []

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        type(self).seen.append(len(getattr(mail, "outbox", [])))
        return response


@dataclass(frozen=True)
class Work:
    status: int
    hashes: int
    mails_in_request: int
    mails_in_all: int


@pytest.fixture
def counted(settings: Any) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.MIDDLEWARE = [f"{__name__}.MailsAtResponse", *settings.MIDDLEWARE]


def sign_up_counted(email: str, display_name: str) -> Work:
    mail.outbox.clear()
    CountingHasher.hashed = 0
    MailsAtResponse.seen.clear()
    response = sign_up(Client(), email=email, display_name=display_name)
    [in_request] = MailsAtResponse.seen
    return Work(response.status_code, CountingHasher.hashed, in_request, len(mail.outbox))


def test_a_registered_and_a_new_address_cost_the_same_work(
    counted: None, make_player: Any, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player(email="anna@example.test", display_name="Anna K")

    registered = sign_up_counted("anna@example.test", "Somebody Else")
    new = sign_up_counted("bela@example.test", "Bela B")

    assert User.objects.count() == 2  # the new address made an account, the other did not
    # one password hashed on both paths; one email each, sent after the response on both
    assert registered == new == Work(status=302, hashes=1, mails_in_request=0, mails_in_all=1)


def test_the_owner_of_a_registered_address_is_told_by_email(
    make_player: Any, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player(email="anna@example.test", display_name="Anna K")

    sign_up(Client(), email="anna@example.test", display_name="Somebody Else")

    [message] = mailoutbox
    assert message.to == ["anna@example.test"]
    assert "already" in message.body  # allauth's "account already exists" email
