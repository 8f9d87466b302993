"""The turn email's repeated parts (the events since the last turn, the table talk, the hand,
the moves' links and the reply lines) do not change when they are written in Python instead of
template loops (issue 30): the partials, and a whole turn email and reminder with table talk
and reply lines, are the ones kept in ``golden/``, written by the template loops.
``test_turn_email_same`` pins a turn email without talk or reply lines."""

from __future__ import annotations

import types
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.template import Context, Template
from django.utils import translation

from games.presenters.history import EventLine
from notifications import outbox
from notifications.emails import LinkedChoice, LinkedGroup, MailCard, MailMessage
from notifications.inbound.moves import ReplyChoice
from notifications.models import NotificationKind
from talk import services as talk
from tests.notifications.conftest import (
    html_of,
    notification,
)
from tests.notifications.test_turn_email_same import normalised, rigged_table

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"
WHEN = datetime(2030, 5, 6, 9, 30, tzinfo=UTC)
#: what a player may write, or a name hold, that markup must not take as its own
ODD = "<b>Tom & \"Jerry\"</b> 'x'"


def _golden(name: str) -> str:
    """A golden file as written, its line ends too (a message's "\\r" stays one)."""
    return (GOLDEN / name).read_bytes().decode()


def _event(text: str) -> EventLine:
    return EventLine(
        seq=1, seat=0, who="Anna", text=text, when=WHEN, icon=None, source="", source_note=""
    )


def _message(author: str, text: str) -> MailMessage:
    return MailMessage(
        author=author,
        text=text,
        indented=text.replace("\n", "\n  "),
        created_at=WHEN,
        hidden=False,
    )


def _choice(action: str, label: str, short: str) -> LinkedChoice:
    path = f"/t/{action.replace(' ', '_')}/"
    return LinkedChoice(action, label, short, f"https://keltis.example{path}", path)


def _context(hand: bool) -> dict[str, Any]:
    """Every repeated part with more than one item, odd characters in each text."""
    red = MailCard("red 7", "7", "#c0392b", "#fbe3df")
    return {
        "since": [_event(f"Anna played {ODD}"), _event("Anna drew from the deck")],
        "talk": [
            _message(ODD, "one line"),
            _message("Bela", f"two\r\nlines {ODD}\nand a third\rand a fourth"),
        ],
        "hand": [red, MailCard(ODD, "&", "#6b6b6b", "#ffffff")] if hand else [],
        "deadline": None,
        "phase_text": "play a card",
        "started_turn": False,
        "groups": [
            LinkedGroup(
                "red 7",
                red,
                [_choice("play r7", f"Lay red 7 {ODD}", "Lay"), _choice("discard r7", "D", "D")],
            ),
            LinkedGroup(ODD, None, [_choice("draw deck", "Draw", f"Draw {ODD}")]),
            LinkedGroup("empty", None, []),
        ],
        "reply_address": "play+x@play.keltis.example",
        "replies": [ReplyChoice("red 7 big", f"Lay {ODD}"), ReplyChoice("deck", "Draw")],
        "draw_deck": "deck",
        "draw_pile": "red",
        "help_word": "help",
        "game_url": "https://keltis.example/games/1/",
    }


def _render(partial: str, autoescape: bool, context: dict[str, Any]) -> str:
    """The partial as the emails include it: the text part's templates turn autoescape off."""
    source = f'{{% include "emails/{partial}" %}}'
    if not autoescape:
        source = f"{{% autoescape off %}}{source}{{% endautoescape %}}"
    return Template(source).render(Context(context))


@pytest.mark.parametrize(
    ("partial", "autoescape", "golden"),
    [
        ("_turn.html", True, "turn_parts.html"),
        ("_turn.txt", False, "turn_parts.txt"),
        # not how an email renders it, but the escaping follows the template's, as before
        ("_turn.txt", True, "turn_parts_escaped.txt"),
    ],
)
def test_the_turn_partials_are_as_before(partial: str, autoescape: bool, golden: str) -> None:
    with translation.override("en"):
        got = _render(partial, autoescape, _context(hand=True)) + _render(
            partial, autoescape, _context(hand=False)
        )
    assert got == _golden(golden)


def _emails(kind: str) -> dict[str, tuple[str, str]]:
    """The turn email and the reminder after seven turns of a rigged game, with table talk
    since the reader's last turn and reply lines, each (text, html) normalised."""
    table = rigged_table(kind)
    anna = table.users[0]
    talk.message_post(game_id=table.game.pk, user=anna, text=f"Hi {ODD}", via="page")
    talk.message_post(game_id=table.game.pk, user=anna, text="two\nlines", via="page")
    game = table.refresh()
    seat = game.to_move
    got = {}
    for name in (NotificationKind.TURN, NotificationKind.REMINDER):
        row = notification(game, table.users[seat], name, seat, game.turn_seq)
        mail.outbox.clear()
        assert outbox.deliver_many([row.pk]) == {"sent": 1}
        [message] = mail.outbox
        got[name] = (normalised(message.body, game.pk), normalised(html_of(message), game.pk))
    return got


def test_a_turn_email_and_reminder_with_talk_and_replies_are_as_before(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0
    settings.INBOUND_EMAIL_DOMAIN = "play.keltis.example"
    monkeypatch.setattr("games.services.secrets", types.SimpleNamespace(randbits=lambda n: 30))
    with time_machine.travel(WHEN, tick=False):
        got = _emails("keltis")
    for name, (text, html) in got.items():
        assert "Messages since your last turn" in text and "Or answer this email" in html
        assert text == _golden(f"{name}_email_talk_replies.txt")
        assert html == _golden(f"{name}_email_talk_replies.html")
