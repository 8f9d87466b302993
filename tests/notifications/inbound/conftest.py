"""Replies to turn emails, written as mail clients write them, and the players who send them."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from allauth.account.models import EmailAddress

from games.models import Game
from notifications import links
from tests.notifications.conftest import Table

DOMAIN = "play.keltis.example"
_ids = itertools.count(1)


@pytest.fixture(autouse=True)
def _inbound(settings: Any) -> None:
    settings.INBOUND_EMAIL_DOMAIN = DOMAIN
    settings.INBOUND_AUTHSERV_ID = "mx.keltis.example"
    settings.INBOUND_RATE_LIMIT = "1000/h"


@pytest.fixture
def players(table: Callable[..., Table]) -> Callable[..., Table]:
    """``table`` whose players' addresses are verified, as sign-up leaves them."""

    def make(kind: str = "keltis", **anna_fields: Any) -> Table:
        t = table(kind, **anna_fields)
        for user in t.users:
            EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return t

    return make


def reply_address(game: Game, seat: int | None = None) -> str:
    game.refresh_from_db()
    seat = game.to_move if seat is None else seat
    address = links.reply_address(links.ReplyKey(game.pk, seat, game.turn_seq))
    assert address is not None
    return address


def reply(
    to: str,
    sender: str,
    body: str,
    *,
    html: str | None = None,
    headers: dict[str, str] | None = None,
    message_id: str | None = None,
    cte: str | None = None,
) -> bytes:
    """A reply's bytes: ``body`` as its text part (``cte``: "quoted-printable" or "base64"),
    with ``html`` as an alternative (or alone when ``body`` is empty)."""
    message = EmailMessage()
    message["From"] = f"A Player <{sender}>"
    message["To"] = to
    message["Subject"] = "Re: Your turn"
    message["Message-ID"] = message_id or f"<reply-{next(_ids)}@client.example>"
    for name, value in (headers or {}).items():
        message[name] = value
    if body or html is None:
        message.set_content(body, cte=cte) if cte else message.set_content(body)
        if html is not None:
            message.add_alternative(html, subtype="html")
    else:
        message.set_content(html, subtype="html", cte=cte) if cte else message.set_content(
            html, subtype="html"
        )
    return message.as_bytes()
