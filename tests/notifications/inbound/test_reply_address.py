"""The Reply-To of turn emails and reminders: a signed token for one game, seat and turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail

from notifications import links
from notifications.emails import send_notification
from notifications.models import NotificationKind
from tests.notifications.conftest import Table, html_of, notification, turn_notification

from .conftest import DOMAIN


def test_a_token_names_one_turn_and_survives_lowercasing() -> None:
    key = links.ReplyKey(12, 1, 40)
    token = links.reply_token(key)
    assert token == token.lower() and len(f"play+{token}") <= 64
    assert links.reply_read(token.upper()) == key
    for other in (links.ReplyKey(13, 1, 40), links.ReplyKey(12, 0, 40), links.ReplyKey(12, 1, 41)):
        forged = f"{other.game_id}-{other.seat}-{other.turn_seq}-{token.rsplit('-', 1)[1]}"
        with pytest.raises(links.LinkError):
            links.reply_read(forged)
    with pytest.raises(links.LinkError):
        links.reply_read(token[:-1] + ("a" if token[-1] != "a" else "b"))


def test_no_domain_no_reply_address(settings: Any) -> None:
    settings.INBOUND_EMAIL_DOMAIN = ""
    assert links.reply_address(links.ReplyKey(1, 0, 0)) is None


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["hu", "ru"])
def test_the_turn_email_carries_its_reply_to_and_the_reply_lines(
    players: Callable[..., Table], language: str
) -> None:
    t = players("keltis", language=language)
    send_notification(turn_notification(t))
    [message] = mail.outbox
    token = links.reply_token(links.ReplyKey(t.game.pk, 0, t.game.turn_seq))
    assert message.reply_to == [f"play+{token}@{DOMAIN}"]
    assert message.message()["Reply-To"] == f"play+{token}@{DOMAIN}"
    line = {"hu": "piros 5 nagy", "ru": "красная 5 большая"}[language]
    assert f"  {line}   (" in message.body
    assert line in html_of(message)


@pytest.mark.django_db
def test_the_reminder_carries_it_too(players: Callable[..., Table]) -> None:
    t = players()
    game = t.refresh()
    row = notification(game, t.users[0], NotificationKind.REMINDER, 0, game.turn_seq)
    assert send_notification(row)
    assert mail.outbox[0].reply_to == [links.reply_address(links.ReplyKey(game.pk, 0, 0))]


@pytest.mark.django_db
def test_without_the_setting_the_email_has_no_reply_to_and_no_reply_lines(
    players: Callable[..., Table], settings: Any
) -> None:
    settings.INBOUND_EMAIL_DOMAIN = ""
    t = players()
    send_notification(turn_notification(t))
    [message] = mail.outbox
    assert message.reply_to == [] and "Reply-To" not in message.message()
    assert "red 5 big" not in message.body
