"""A message the email library cannot parse (MIME nested thousands deep, a header past its
parser) is a permanent failure: recorded, answered when the seat's player sent it, never a
"try again" that the mail server repeats for days."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.core import mail

from games.models import Event
from notifications.inbound.handler import EX_DATAERR, EX_OK, MAX_MIME_PARTS, receive
from notifications.models import InboundMessage, InboundOutcome
from tests.notifications.conftest import Table

from .conftest import reply_address

pytestmark = pytest.mark.django_db


def nested(to: str, sender: str, depth: int, *, body: str = "red 5 big") -> bytes:
    """A reply whose text part sits ``depth`` multipart levels deep."""
    head = (
        f"From: A Player <{sender}>\nTo: {to}\nSubject: Re: Your turn\n"
        f"Message-ID: <deep-{depth}@client.example>\nMIME-Version: 1.0\n"
    )
    opening = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth)
    )
    closing = "".join(f"--b{i}--\n" for i in reversed(range(depth)))
    return (head + opening + f"Content-Type: text/plain\n\n{body}\n" + closing).encode()


def many_parts(to: str, sender: str, parts: int) -> bytes:
    head = (
        f"From: A Player <{sender}>\nTo: {to}\nSubject: Re: Your turn\n"
        'Message-ID: <wide@client.example>\nContent-Type: multipart/mixed; boundary="b"\n\n'
    )
    return (head + "--b\n\nx\n" * parts + "--b--\n").encode()


def test_a_reply_nested_3000_deep_is_refused_recorded_and_answered(
    players: Callable[..., Table],
) -> None:
    t = players("keltis", language="hu")
    anna = t.users[0]
    result = receive(nested(reply_address(t.game), anna.email, 3000))

    assert (result.outcome, result.status, result.answered) == ("refused", EX_OK, True)
    assert not Event.objects.filter(game=t.game).exists()
    row = InboundMessage.objects.get()
    assert (row.outcome, row.sender, row.game_id) == ("refused", anna.email, t.game.pk)
    assert json.loads(row.detail) == {"error": "unparseable"}
    [answer] = mail.outbox
    assert answer.to == [anna.email]
    assert "nem sikerült elolvasni" in answer.body  # in her language


def test_a_reply_nested_a_few_levels_is_played(players: Callable[..., Table]) -> None:
    t = players()
    result = receive(nested(reply_address(t.game), t.users[0].email, 5))
    assert result.outcome == "applied"


def test_a_reply_of_too_many_parts_is_refused(players: Callable[..., Table]) -> None:
    t = players()
    result = receive(many_parts(reply_address(t.game), t.users[0].email, MAX_MIME_PARTS + 1))
    assert (result.outcome, result.status) == ("refused", EX_OK)
    assert json.loads(InboundMessage.objects.get().detail) == {"error": "unparseable"}


def test_an_unparseable_reply_from_a_stranger_is_recorded_not_answered(
    players: Callable[..., Table],
) -> None:
    t = players()
    result = receive(nested(reply_address(t.game), "mallory@example.org", 3000))
    assert (result.outcome, result.status, result.answered) == ("forged", EX_OK, False)
    row = InboundMessage.objects.get()
    assert json.loads(row.detail) == {"error": "unparseable"}
    assert not mail.outbox


@pytest.mark.parametrize(
    "sender",
    [
        "(" * 3000 + "x" + ")" * 3000 + " <a@example.org>",  # RecursionError in its parser
        "g:" * 3000 + "a@example.org" + ";" * 3000,  # AttributeError in its parser
    ],
)
def test_a_from_header_the_parser_fails_on_is_garbage_not_a_retry(
    players: Callable[..., Table], sender: str
) -> None:
    t = players()
    raw = nested(reply_address(t.game), "x@example.org", 1).replace(
        b"From: A Player <x@example.org>", f"From: {sender}".encode()
    )
    result = receive(raw)
    assert (result.outcome, result.status) == (InboundOutcome.GARBAGE, EX_DATAERR)
    assert InboundMessage.objects.get().outcome == InboundOutcome.GARBAGE


def test_a_to_header_the_parser_fails_on_hides_not_the_envelope_recipient(
    players: Callable[..., Table],
) -> None:
    t = players()
    to = reply_address(t.game)
    raw = nested(to, t.users[0].email, 1).replace(
        f"To: {to}".encode(), b"To: " + b"g:" * 3000 + b"a@example.org" + b";" * 3000
    )
    assert receive(raw, recipient=to).outcome == "applied"


def test_a_header_that_cannot_be_read_counts_against_the_message(
    players: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether it is automatic cannot be told: it is taken for automatic, never answered."""
    t = players()

    def broken(*args: object) -> bool:
        raise RecursionError("a header past its parser")

    monkeypatch.setattr("notifications.inbound.handler._is_automatic", broken)
    result = receive(nested(reply_address(t.game), t.users[0].email, 1))
    assert (result.outcome, result.answered) == (InboundOutcome.LOOP, False)
    assert not Event.objects.filter(game=t.game).exists() and not mail.outbox
