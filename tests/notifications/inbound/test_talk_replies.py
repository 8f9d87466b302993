"""Replies that hold a message for the table (issue 29): the moves at the top are played, the
words under them posted at the table (via email); a line that looks like a move but cannot be
played refuses the reply and is never posted; a message needs no turn. In the styles of a few
mail clients: the quote, the client's header block and the signature are never posted."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games.models import Event
from notifications.inbound.handler import STUCK_AFTER, receive
from notifications.models import InboundMessage, InboundOutcome, Notification, NotificationKind
from talk.models import Message
from tests.notifications.conftest import Table, play_turn

from .conftest import reply, reply_address

pytestmark = pytest.mark.django_db

QUOTED = ["Hello Anna,", "", "it is your turn in Keltis #1.", "  * Lay red 5", "red 9 big"]


def quoted(lines: list[str]) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def gmail(text: str) -> str:
    """Top-posted above a wrapped "On ... wrote:" header and the ">" quote."""
    header = (
        "On Mon, 3 Mar 2025 at 10:00, Keltis by mail <\nplay+1-0-3-abcdefgh@play.example> wrote:"
    )
    return f"{text}\n\n{header}\n{quoted(QUOTED)}\n"


def outlook(text: str) -> str:
    """The original pasted unquoted under "-----Original Message-----" and a From block."""
    block = [
        "-----Original Message-----",
        "From: Keltis by mail <noreply@keltis.example>",
        "Sent: Monday, March 3, 2025 10:00 AM",
        "To: Anna",
        "Subject: Your turn in Keltis #1",
    ]
    return f"{text}\n\n" + "\n".join(block) + "\n\n" + "\n".join(QUOTED) + "\n"


def apple_mail(text: str) -> str:
    """Apple Mail on a phone: its own line, then the header quoted with the text."""
    header = "On 3 Mar 2025, at 10:00, Keltis by mail <noreply@keltis.example> wrote:"
    return f"{text}\n\nSent from my iPhone\n\n> {header}\n>\n{quoted(QUOTED)}\n"


def thunderbird(text: str) -> str:
    """Bottom-posted under the quote, with a signature after "-- "."""
    header = "On 3/3/25 10:00 AM, Keltis by mail wrote:"
    return f"{header}\n{quoted(QUOTED)}\n\n{text}\n\n-- \nAnna Kovacs\nhttps://anna.example\n"


def signature(text: str) -> str:
    return f"{text}\n-- \nAnna Kovacs\nBudapest\n"


STYLES = {
    "gmail": gmail,
    "outlook": outlook,
    "apple mail": apple_mail,
    "thunderbird": thunderbird,
    "signature": signature,
}


def events(t: Table) -> list[str]:
    return list(Event.objects.filter(game=t.game).order_by("seq").values_list("action", flat=True))


def talk(t: Table) -> list[tuple[str, str, int]]:
    return list(
        Message.objects.filter(game=t.game).order_by("pk").values_list("text", "via", "author_id")
    )


def detail() -> dict[str, Any]:
    return json.loads(InboundMessage.objects.get().detail or "{}")


def answer_to(user: Any) -> Any:
    [answer] = [m for m in mail.outbox if m.to == [user.email] and "Your reply" in m.subject]
    return answer


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_move_and_a_message_in_each_clients_style(
    players: Callable[..., Table], style: str
) -> None:
    t = players()
    anna, bela = t.users
    mail.outbox.clear()
    body = STYLES[style]("red 5 big\nGood luck, Bela!\nSee you at the next table.")

    result = receive(reply(reply_address(t.game), anna.email, body))

    assert result.outcome == InboundOutcome.APPLIED and result.answered
    assert events(t) == ["play r5 big", "draw deck"]  # the move, and the only draw
    assert talk(t) == [("Good luck, Bela!\nSee you at the next table.", "email", anna.pk)]
    assert detail()["message"] == "posted"
    answer = answer_to(anna)
    assert "was played" in answer.body
    assert "Your message was posted at the table." in answer.body
    # Bela hears of it by his choice for messages (an email for every message by default)
    assert Notification.objects.filter(user=bela, kind=NotificationKind.MESSAGE).exists()


@pytest.mark.parametrize("style", ["gmail", "outlook"])
def test_only_a_message_is_posted_and_the_turn_stays(
    players: Callable[..., Table], style: str
) -> None:
    t = players()
    anna = t.users[0]
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), anna.email, STYLES[style]("Nice to meet you!")))
    assert result.outcome == InboundOutcome.MESSAGE and result.answered
    assert events(t) == [] and t.refresh().to_move == 0
    assert talk(t) == [("Nice to meet you!", "email", anna.pk)]
    answer = answer_to(anna)
    assert "Your message was posted at the table." in answer.body
    assert "red 5 big" in answer.body  # still their turn: the moves as reply lines


def test_only_a_move_posts_nothing(players: Callable[..., Table]) -> None:
    t = players()
    result = receive(reply(reply_address(t.game), t.users[0].email, gmail("red 5 big")))
    assert result.outcome == InboundOutcome.APPLIED
    assert events(t) == ["play r5 big", "draw deck"] and talk(t) == []
    assert "message" not in detail()
    assert "Your message" not in answer_to(t.users[0]).body


@pytest.mark.parametrize(
    "body",
    [
        "red 5 bigg\nGood luck!",  # a typo of a move, then a message
        "purple 12\nGood luck!",  # no such colour, a number: a move attempt
        "red 5\nGood luck!",  # ambiguous
        "draw deck\nGood luck!",  # a move that cannot be played now
    ],
)
def test_a_move_typo_refuses_the_reply_and_is_never_posted(
    players: Callable[..., Table], body: str
) -> None:
    t = players()
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), t.users[0].email, signature(body)))
    assert result.outcome == InboundOutcome.REFUSED and result.answered
    assert events(t) == [] and talk(t) == []
    assert "Nothing was changed" in answer_to(t.users[0]).body


def test_a_move_after_the_turn_is_over_and_what_follows_are_left_unread(
    players: Callable[..., Table],
) -> None:
    t = players()
    receive(reply(reply_address(t.game), t.users[0].email, "red 5 big\nred 9 big\nGood luck!"))
    assert events(t) == ["play r5 big", "draw deck"] and talk(t) == []
    assert detail()["ignored"] == "red 9 big"


def test_a_message_while_it_is_not_the_players_turn(players: Callable[..., Table]) -> None:
    """Bela answers a message email (Reply-To his seat) while Anna is to move."""
    t = players()
    bela = t.users[1]
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game, seat=1), bela.email, outlook("Take your time")))
    # "Take" is a move word ("take" draws): a two-word line beginning with it is a move
    # attempt, so it is not posted; written as a sentence it is
    assert result.outcome == InboundOutcome.STALE and talk(t) == []

    mail.outbox.clear()
    result = receive(
        reply(reply_address(t.game, seat=1), bela.email, apple_mail("Hi Anna, have fun"))
    )
    assert result.outcome == InboundOutcome.MESSAGE and result.answered
    assert talk(t) == [("Hi Anna, have fun", "email", bela.pk)]
    assert events(t) == []
    answer = answer_to(bela)
    assert "Your message was posted at the table." in answer.body
    assert "It is " in answer.body  # whose turn it is now


def test_a_late_reply_posts_its_message_and_leaves_its_moves(
    players: Callable[..., Table],
) -> None:
    t = players()
    anna = t.users[0]
    address = reply_address(t.game)
    play_turn(t)
    play_turn(t)  # Anna's turn again: the address names a turn that is over
    before = events(t)
    mail.outbox.clear()
    result = receive(reply(address, anna.email, gmail("red 5 big\nSorry, I was away")))
    assert result.outcome == InboundOutcome.STALE and result.answered
    assert events(t) == before
    assert talk(t) == [("Sorry, I was away", "email", anna.pk)]
    answer = answer_to(anna)
    assert "Your moves were for a turn that is over: they were not played." in answer.body
    assert "Your message was posted at the table." in answer.body


def test_a_too_long_message_is_refused_and_the_moves_are_played(
    players: Callable[..., Table],
) -> None:
    t = players()
    anna = t.users[0]
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), anna.email, "red 5 big\n" + "words " * 120))
    assert result.outcome == InboundOutcome.APPLIED
    assert events(t) == ["play r5 big", "draw deck"] and talk(t) == []
    assert "at most 500 characters" in detail()["message_error"]
    assert "Your message was not posted: A message has at most 500" in answer_to(anna).body


def test_a_too_long_message_alone_is_refused(players: Callable[..., Table]) -> None:
    t = players()
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), t.users[0].email, "words " * 120))
    assert result.outcome == InboundOutcome.REFUSED and result.answered
    assert talk(t) == [] and detail()["error"] == "message"
    assert "Your message was not posted" in answer_to(t.users[0]).body


def test_a_message_past_the_rate_limit_is_refused(
    players: Callable[..., Table], settings: Any
) -> None:
    settings.TALK_RATE_PER_MINUTE = "1/m"
    t = players()
    anna = t.users[0]
    receive(reply(reply_address(t.game), anna.email, "Hello there"))
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), anna.email, "Hello again"))
    assert result.outcome == InboundOutcome.REFUSED
    assert [text for text, _via, _author in talk(t)] == ["Hello there"]
    assert "writing too fast" in answer_to(anna).body


def test_a_sign_off_with_the_players_name_is_not_posted(players: Callable[..., Table]) -> None:
    t = players("keltis", display_name="Anna Kovacs")
    result = receive(reply(reply_address(t.game), t.users[0].email, "Good game\n- Anna"))
    assert result.outcome == InboundOutcome.MESSAGE
    assert [text for text, _via, _author in talk(t)] == ["Good game"]
    InboundMessage.objects.all().delete()
    result = receive(reply(reply_address(t.game), t.users[0].email, "Anna"))
    assert result.outcome == InboundOutcome.HELP  # nothing but the name: as an empty reply


def test_the_help_answer_says_how_to_write_a_message(players: Callable[..., Table]) -> None:
    t = players()
    mail.outbox.clear()
    receive(reply(reply_address(t.game), t.users[0].email, "help"))
    assert "A message for the table goes under your moves" in answer_to(t.users[0]).body
    assert talk(t) == []


def test_a_reply_handled_again_after_a_dead_worker_posts_its_message_once(
    players: Callable[..., Table],
) -> None:
    """A worker that died after posting the message, before closing the reply's row: the row
    stays "processing"; once it is stuck, the redelivered reply is handled again, and its
    message is found, not posted twice (nor notified twice)."""
    t = players()
    anna, bela = t.users
    raw = reply(reply_address(t.game), anna.email, "Well played!", message_id="<d@x>")
    receive(raw)
    assert talk(t) == [("Well played!", "email", anna.pk)]
    notified = Notification.objects.filter(user=bela, kind=NotificationKind.MESSAGE).count()
    # as a dead worker leaves it: still processing, long ago
    InboundMessage.objects.update(
        outcome=InboundOutcome.PROCESSING,
        received_at=timezone.now() - STUCK_AFTER - timedelta(minutes=1),
        answered_at=None,
    )

    result = receive(raw)

    assert result.outcome == InboundOutcome.MESSAGE
    assert talk(t) == [("Well played!", "email", anna.pk)]
    assert Notification.objects.filter(user=bela, kind=NotificationKind.MESSAGE).count() == notified
