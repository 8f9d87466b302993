"""A reply takes the turn through action_submit; every refusal changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail

from games.models import Event, GameStatus
from games.state import engine_state
from notifications.inbound.handler import EX_DATAERR, EX_NOUSER, EX_OK, receive
from notifications.models import InboundMessage, InboundOutcome
from tests.notifications.conftest import Table, play_turn

from .conftest import reply, reply_address

pytestmark = pytest.mark.django_db


def events(t: Table) -> int:
    return Event.objects.filter(game=t.game).count()


def test_a_whole_turn_in_one_reply_is_played_and_answered(players: Callable[..., Table]) -> None:
    t = players("keltis", language="hu")
    anna = t.users[0]
    raw = reply(reply_address(t.game), anna.email, "piros 5 nagy\nhúz pakli\n")

    result = receive(raw)

    assert (result.outcome, result.status, result.answered) == ("applied", EX_OK, True)
    actions = list(
        Event.objects.filter(game=t.game).order_by("seq").values_list("action", flat=True)
    )
    assert actions == ["play r5 big", "draw deck"]
    assert t.refresh().to_move == 1
    [answer] = [m for m in mail.outbox if m.to == [anna.email] and "Re" not in m.subject]
    assert answer.extra_headers["Content-Language"] == "hu"
    assert "Piros 5" in answer.body or "piros 5" in answer.body
    row = InboundMessage.objects.get()
    assert json.loads(row.detail)["applied"] == ["play r5 big", "draw deck"]
    assert row.answered_at is not None


def test_the_same_message_twice_acts_once_and_answers_once(players: Callable[..., Table]) -> None:
    t = players()
    raw = reply(reply_address(t.game), t.users[0].email, "red 5 big")
    receive(raw)
    sent = len(mail.outbox)
    second = receive(raw)
    assert second.answered is False
    # the move, and the draw from the only pile that the site took for the player
    assert events(t) == 2 and len(mail.outbox) == sent
    assert InboundMessage.objects.count() == 1


def test_a_reply_for_a_turn_that_moved_on_changes_nothing_and_says_so(
    players: Callable[..., Table],
) -> None:
    t = players()
    address = reply_address(t.game)
    play_turn(t)  # Anna plays on the web
    play_turn(t)  # Bela too: Anna's turn again, a new turn
    before = events(t)
    mail.outbox.clear()
    result = receive(reply(address, t.users[0].email, "red 5 big"))
    assert result.outcome == InboundOutcome.STALE and result.answered
    assert events(t) == before
    [answer] = mail.outbox
    assert "nothing was changed" in answer.body
    # the answer carries the new turn's address: the player may answer it
    assert answer.reply_to == [reply_address(t.game)]


@pytest.mark.parametrize(
    ("body", "error"),
    [("purple 12", "unreadable"), ("red 5", "ambiguous"), ("draw deck", "illegal")],
)
def test_a_move_that_cannot_be_played_changes_nothing_and_lists_the_moves(
    players: Callable[..., Table], body: str, error: str
) -> None:
    t = players()
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), t.users[0].email, body))
    assert result.outcome == InboundOutcome.REFUSED and result.answered
    assert events(t) == 0
    assert json.loads(InboundMessage.objects.get().detail)["error"] == error
    [answer] = mail.outbox
    assert "Nothing was changed" in answer.body
    assert "red 5 big" in answer.body  # the legal moves as reply lines
    assert answer.reply_to == [reply_address(t.game)]


def test_an_illegal_line_stops_the_whole_reply(players: Callable[..., Table]) -> None:
    t = players()
    result = receive(reply(reply_address(t.game), t.users[0].email, "red 9\nred 5 big"))
    assert result.outcome == InboundOutcome.REFUSED
    assert events(t) == 0


def test_help_and_an_empty_reply_answer_with_the_position(players: Callable[..., Table]) -> None:
    t = players("keltis", language="de")
    for body in ("Hilfe", ""):
        mail.outbox.clear()
        result = receive(reply(reply_address(t.game), t.users[0].email, body))
        assert result.outcome == InboundOutcome.HELP
        [answer] = mail.outbox
        assert "rot 5 groß" in answer.body
    assert events(t) == 0


def test_a_greeting_under_the_moves_is_posted_as_a_message_and_said_so(
    players: Callable[..., Table],
) -> None:
    """Issue 29: the words under the moves are a message for the table (they used to be left
    unread, "The lines from ... on were not read as moves")."""
    t = players()
    mail.outbox.clear()
    receive(reply(reply_address(t.game), t.users[0].email, "red 5 big\ndraw deck\nThanks, Anna"))
    assert events(t) == 2
    assert list(t.game.messages.values_list("text", "via")) == [("Thanks, Anna", "email")]
    assert "Your message was posted at the table." in mail.outbox[0].body


def test_a_move_like_line_under_the_moves_is_left_unread_and_said_so(
    players: Callable[..., Table],
) -> None:
    t = players()
    mail.outbox.clear()
    receive(reply(reply_address(t.game), t.users[0].email, "red 5 big\ndraw deck\nred 7 bigg"))
    assert events(t) == 2
    assert '"red 7 bigg"' in mail.outbox[0].body
    assert not t.game.messages.exists()


def test_a_move_whose_draw_is_the_only_one_ends_the_turn_and_a_late_draw_is_stale(
    players: Callable[..., Table],
) -> None:
    t = players()
    address = reply_address(t.game)
    receive(reply(address, t.users[0].email, "red 5 big"))
    # the discard piles are empty: the site drew from the deck for the player
    assert t.refresh().to_move == 1 and events(t) == 2
    late = receive(reply(address, t.users[0].email, "draw deck"))
    assert late.outcome == InboundOutcome.STALE and events(t) == 2


def test_a_forged_from_is_refused_unanswered(players: Callable[..., Table]) -> None:
    t = players()
    bela = t.users[1]
    mail.outbox.clear()
    for sender in (bela.email, "stranger@evil.example"):
        result = receive(reply(reply_address(t.game), sender, "red 5 big"))
        assert result.outcome == InboundOutcome.FORGED
    assert events(t) == 0 and mail.outbox == []


def test_an_unverified_address_of_the_player_is_refused(players: Callable[..., Table]) -> None:
    t = players()
    from allauth.account.models import EmailAddress

    EmailAddress.objects.filter(user=t.users[0]).update(verified=False)
    result = receive(reply(reply_address(t.game), t.users[0].email, "red 5 big"))
    assert result.outcome == InboundOutcome.FORGED and events(t) == 0


def test_our_servers_dmarc_fail_is_refused_and_others_are_ignored(
    players: Callable[..., Table],
) -> None:
    t = players()
    anna = t.users[0]
    theirs = {"Authentication-Results": "mx.elsewhere.example; dmarc=fail header.from=x"}
    ours = {"Authentication-Results": "mx.keltis.example; spf=pass; dmarc=fail header.from=x"}
    mail.outbox.clear()
    refused = receive(reply(reply_address(t.game), anna.email, "red 5 big", headers=ours))
    assert refused.outcome == InboundOutcome.DMARC_FAIL and events(t) == 0 and not mail.outbox
    played = receive(reply(reply_address(t.game), anna.email, "red 5 big", headers=theirs))
    assert played.outcome == InboundOutcome.APPLIED and events(t) == 2  # and the only draw


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"X-Autoreply": "yes"},
        {"Precedence": "bulk"},
        {"Return-Path": "<>"},
    ],
)
def test_auto_replies_and_bounces_are_ignored(
    players: Callable[..., Table], headers: dict[str, str]
) -> None:
    t = players()
    mail.outbox.clear()
    result = receive(reply(reply_address(t.game), t.users[0].email, "red 5 big", headers=headers))
    assert result.outcome == InboundOutcome.LOOP and events(t) == 0 and mail.outbox == []


def test_a_bounce_from_the_mailer_daemon_is_ignored(players: Callable[..., Table]) -> None:
    t = players()
    mail.outbox.clear()
    raw = reply(reply_address(t.game), "MAILER-DAEMON@mx.example", "red 5 big")
    assert receive(raw, envelope_sender="").outcome == InboundOutcome.LOOP
    assert events(t) == 0 and mail.outbox == []


def test_auto_submitted_no_is_a_person(players: Callable[..., Table]) -> None:
    t = players()
    raw = reply(
        reply_address(t.game), t.users[0].email, "red 5 big", headers={"Auto-Submitted": "no"}
    )
    assert receive(raw).outcome == InboundOutcome.APPLIED


def test_a_message_over_the_size_cap_is_refused_unread(players: Callable[..., Table]) -> None:
    t = players()
    mail.outbox.clear()
    raw = reply(reply_address(t.game), t.users[0].email, "red 5 big\n" + "x" * 10_000_000)
    result = receive(raw)
    assert (result.outcome, result.status) == (InboundOutcome.TOO_LARGE, EX_DATAERR)
    assert events(t) == 0 and mail.outbox == []


@pytest.mark.parametrize("raw", [b"", b"\x00\xff garbage \x00", b"Subject: hi\n\nno sender\n"])
def test_garbage_is_refused(players: Callable[..., Table], raw: bytes) -> None:
    t = players()
    result = receive(raw)
    assert (result.outcome, result.status) == (InboundOutcome.GARBAGE, EX_DATAERR)
    assert events(t) == 0 and mail.outbox == []


def test_a_forged_or_altered_address_is_no_such_user(players: Callable[..., Table]) -> None:
    t = players()
    address = reply_address(t.game)
    other_seat = reply_address(t.game, seat=1)
    altered = address.replace(f"play+{t.game.pk}-0-", f"play+{t.game.pk}-1-")
    for to in (altered, "play+nonsense@play.keltis.example", "someone@play.keltis.example"):
        result = receive(reply(to, t.users[1].email, "blue 1 big"))
        assert (result.outcome, result.status) == (InboundOutcome.UNKNOWN_ADDRESS, EX_NOUSER)
    # Bela's own (genuine) address for seat 1 is a turn that is not on: stale, answered
    assert receive(reply(other_seat, t.users[1].email, "blue 1 big")).outcome == "stale"
    assert events(t) == 0


def test_the_address_survives_a_server_that_lowercases_it(players: Callable[..., Table]) -> None:
    t = players()
    raw = reply(reply_address(t.game).upper(), t.users[0].email, "RED 5 BIG")
    assert receive(raw).outcome == InboundOutcome.APPLIED


def test_replies_past_the_rate_limit_are_ignored(
    players: Callable[..., Table], settings: Any
) -> None:
    settings.INBOUND_RATE_LIMIT = "2/h"
    t = players()
    outcomes = [
        receive(reply(reply_address(t.game), t.users[0].email, "help")).outcome for _ in range(3)
    ]
    assert outcomes == ["help", "help", "rate_limited"]


def test_a_whole_card_game_turn_with_the_point_card_spelling(
    players: Callable[..., Table],
) -> None:
    t = players("keltis-cards")
    legal = engine_state(t.game).legal()
    first = legal[0]
    raw = reply(reply_address(t.game), t.users[0].email, f"{first}\ndraw deck")
    assert receive(raw).outcome == InboundOutcome.APPLIED
    assert t.refresh().to_move == 1 or t.game.status == GameStatus.FINISHED
