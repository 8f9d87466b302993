"""Every link of every kind of email the site sends reaches the site that sent it.

The site here is a newcomer's ``PORT=8101 scripts/serve``: SITE_URL is what the settings
make of that environment (no SITE_URL of its own), while the test client's requests name the
host "testserver" (as a proxy in front of the site may). Each email is produced the way the
site produces it; every address in its text part, its HTML part and its headers must be on
http://127.0.0.1:8101 and answer (after redirects) with a page.
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import EmailMode
from games import timeouts
from games.models import Game, GameStatus
from notifications.emails import send_notification
from notifications.models import NotificationKind
from tests.notifications.conftest import Table, notification, play_turn, turn_notification

pytestmark = pytest.mark.django_db

SITE_URL = "http://127.0.0.1:8101"
PASSWORD = "a long pass phrase 42"

_URL = re.compile(r"https?://[^\s<>\"']+")
_HREF = re.compile(r"""href=["']([^"']+)["']""")
_HEADER_URL = re.compile(r"<([^>]+)>")


@pytest.fixture(scope="module")
def served_site_url() -> str:
    """SITE_URL as the processes of ``PORT=8101 scripts/serve`` read it (a fresh process: the
    settings read the environment once)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "PORT")}
    env.update(PORT="8101", DJANGO_SETTINGS_MODULE="keltis_site.settings", ENV_FILE="/nonexistent")
    result = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.SITE_URL)"],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


@pytest.fixture(autouse=True)
def _newcomer_site(_site: None, settings: Any, served_site_url: str) -> None:
    settings.SITE_URL = served_site_url


def addresses(message: mail.EmailMessage) -> set[str]:
    """Every address the email offers: in its text, its HTML part (links and text) and the
    List-Unsubscribe header."""
    parts = [message.body]
    if isinstance(message, mail.EmailMultiAlternatives):
        parts += [str(content) for content, _mimetype in message.alternatives]
    found = set()
    for part in parts:
        found |= {html.unescape(url) for url in _URL.findall(part)}
        found |= {html.unescape(href) for href in _HREF.findall(part)}
    found |= set(_HEADER_URL.findall(message.extra_headers.get("List-Unsubscribe", "")))
    return found


# -- each kind of email, made as the site makes it -----------------------------------------------
def turn(table: Callable[..., Table]) -> None:
    assert send_notification(turn_notification(table()))


def reminder(table: Callable[..., Table]) -> None:
    t = table()
    Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() + dt.timedelta(hours=2))
    game = t.refresh()
    assert send_notification(notification(game, t.users[0], NotificationKind.REMINDER, 0, 0))


def timeout(table: Callable[..., Table]) -> None:
    t = table()
    game = t.refresh()
    seq = game.seq
    assert game.deadline is not None
    assert timeouts.timeout_apply(game_id=game.pk, now=game.deadline + dt.timedelta(seconds=1))
    for user in t.users:  # the one who timed out, and the one whose turn it is now
        assert send_notification(notification(game, user, NotificationKind.TIMEOUT, 0, seq))


def game_over(table: Callable[..., Table]) -> None:
    t = table("keltis-cards")
    game = t.refresh()
    while game.status == GameStatus.RUNNING:
        play_turn(t, seed=game.seq)
        game = t.refresh()
    for seat, user in enumerate(t.users):
        assert send_notification(notification(game, user, NotificationKind.FINISHED, seat))


def digest(table: Callable[..., Table]) -> None:
    t = table(email_mode=EmailMode.DAILY_DIGEST)
    assert send_notification(notification(None, t.users[0], NotificationKind.DIGEST))


def sign_up(client: Client, email: str) -> None:
    data = {"email": email, "display_name": "Vera", "password1": PASSWORD, "password2": PASSWORD}
    assert client.post(reverse("account_signup"), data).status_code == 302


def account_verification(table: Callable[..., Table]) -> None:
    sign_up(Client(), "vera@mail.example")


def address_change(table: Callable[..., Table]) -> None:
    anna = table().users[0]
    EmailAddress.objects.create(user=anna, email=anna.email, primary=True, verified=True)
    client = Client()
    client.force_login(anna, backend="allauth.account.auth_backends.AuthenticationBackend")
    client.post(reverse("account_email"), {"email": "anna.new@mail.example", "action_add": ""})


def password_reset(table: Callable[..., Table]) -> None:
    anna = table().users[0]
    EmailAddress.objects.create(user=anna, email=anna.email, primary=True, verified=True)
    Client().post(reverse("account_reset_password"), {"email": anna.email})


def password_reset_of_an_unknown_address(table: Callable[..., Table]) -> None:
    Client().post(reverse("account_reset_password"), {"email": "nobody@mail.example"})


def sign_up_with_a_taken_address(table: Callable[..., Table]) -> None:
    anna = table().users[0]
    EmailAddress.objects.create(user=anna, email=anna.email, primary=True, verified=True)
    sign_up(Client(), anna.email)


KINDS = {
    "turn": turn,
    "reminder": reminder,
    "timeout": timeout,
    "game over": game_over,
    "digest": digest,
    "account verification": account_verification,
    "address change": address_change,
    "password reset": password_reset,
    "password reset, unknown address": password_reset_of_an_unknown_address,
    "sign-up, address taken": sign_up_with_a_taken_address,
}
#: the game emails, which carry the one-click unsubscribe link (header and footer)
GAME_EMAILS = {"turn", "reminder", "timeout", "game over", "digest"}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_link_of_the_email_reaches_the_site_that_sent_it(
    kind: str, table: Callable[..., Table]
) -> None:
    mail.outbox.clear()
    KINDS[kind](table)
    assert mail.outbox, f"no {kind} email was sent"
    site = urlsplit(SITE_URL)
    for message in mail.outbox:
        found = addresses(message)
        assert found, f"the {kind} email has no link"
        if kind in GAME_EMAILS:
            assert any("/email/unsubscribe/" in url for url in found), message.extra_headers
        for url in sorted(found):
            parts = urlsplit(url)
            assert (parts.scheme, parts.netloc) == (site.scheme, site.netloc), (kind, url)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            # a fresh browser, as when the link is opened in the mail program
            response = Client().get(path, follow=True)
            assert response.status_code == 200, (kind, url, response.status_code)
