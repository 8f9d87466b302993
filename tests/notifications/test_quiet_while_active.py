"""Quiet while active: a player at the game (its page open, or a step taken on its page in the
last NOTIFICATION_QUIET_MINUTES) gets no turn message for it; the same turn still theirs after
the delay does bring one. A move made by replying to the turn email does not count: an email
player gets the next turn email at once. Reminders are never held; "always notify me" restores
every message. Time is moved with time-machine, never slept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.urls import reverse

from games import presence
from games.engine.bots import RandomBot
from games.models import Event, EventSource, GameStatus
from games.state import engine_state
from notifications import outbox
from notifications.inbound.handler import receive
from notifications.models import Notification, NotificationKind, NotificationStatus
from tests.notifications.conftest import Table, play_turn
from tests.notifications.inbound.conftest import reply, reply_address

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _quiet(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 10
    settings.LIVE_KEEPALIVE_SECONDS = 20  # a presence mark lives for a minute unrefreshed


def play_turn_on_page(t: Table, seed: int = 1) -> None:
    """The seat to move plays its whole turn with the game page's buttons (``game_act``)."""
    game = t.refresh()
    seat = game.to_move
    page = Client()
    page.force_login(t.users[seat])
    bot = RandomBot(seed)
    while game.status == GameStatus.RUNNING and game.to_move == seat:
        action = bot.choose(engine_state(game))
        moved = page.post(reverse("game_act", args=[game.pk]), {"action": action, "seq": game.seq})
        assert moved.status_code == 303
        game = t.refresh()


def turn_emails_to(user: Any) -> list[Any]:
    return [m for m in mail.outbox if m.to == [user.email]]


def bela_turn_row(t: Any) -> Notification:
    game = t.refresh()
    return Notification.objects.get(
        kind=NotificationKind.TURN, user=t.users[1], seq=game.turn_seq, channel="email"
    )


def test_a_player_on_the_page_gets_no_turn_email_until_the_delay_has_passed(
    table: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        bela = t.users[1]
        presence.mark(t.game.pk, bela.pk)  # Bela has the game's page open
        mail.outbox.clear()
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(t)  # Anna plays: Bela's turn

        assert turn_emails_to(bela) == []
        row = bela_turn_row(t)
        assert row.status == NotificationStatus.QUEUED
        assert row.next_attempt_at == START + timedelta(minutes=10)
        assert outbox.deliver_due() == {}  # the sweep leaves it: not due

        # Bela closed the page (the mark runs out) and did not play: after the delay it goes
        clock.shift(timedelta(minutes=10))
        assert outbox.deliver_due() == {"sent": 1}
        [email] = turn_emails_to(bela)
        assert str(t.game.pk) in email.subject


def test_still_on_the_page_when_the_delay_is_over_holds_it_again(table: Any) -> None:
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        bela = t.users[1]
        presence.mark(t.game.pk, bela.pk)
        play_turn(t)
        mail.outbox.clear()
        clock.shift(timedelta(minutes=10))
        presence.mark(t.game.pk, bela.pk)  # the page's keep-alives renewed the mark
        assert outbox.deliver_due().get("held") == 1
        row = bela_turn_row(t)
        assert (row.status, row.attempts) == (NotificationStatus.QUEUED, 0)
        assert row.next_attempt_at == START + timedelta(minutes=20)
        assert turn_emails_to(bela) == []


def test_a_turn_played_meanwhile_sends_nothing(table: Any) -> None:
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        bela = t.users[1]
        presence.mark(t.game.pk, bela.pk)
        play_turn(t)
        row = bela_turn_row(t)
        clock.shift(timedelta(minutes=1))
        play_turn(t)  # Bela plays from the page
        mail.outbox.clear()
        clock.shift(timedelta(minutes=10))
        outbox.deliver_due()
        row.refresh_from_db()
        assert row.status == NotificationStatus.SKIPPED
        assert turn_emails_to(bela) == []


def test_a_player_who_just_moved_hears_of_the_next_turn_only_after_the_delay(
    table: Any,
) -> None:
    """No page open (no stream: say the live server is down), but Anna played on the game's
    page two minutes ago: her next turn waits until ten minutes after that step."""
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        anna = t.users[0]
        play_turn_on_page(t)  # Anna, at START, with the page's buttons
        clock.shift(timedelta(minutes=2))
        play_turn(t)  # Bela: Anna's turn again
        mail.outbox.clear()
        outbox.deliver_due()
        assert turn_emails_to(anna) == []
        game = t.refresh()
        row = Notification.objects.get(
            kind=NotificationKind.TURN, user=anna, seq=game.turn_seq, channel="email"
        )
        assert row.next_attempt_at == START + timedelta(minutes=10)
        clock.shift(timedelta(minutes=8))
        assert outbox.deliver_due() == {"sent": 1}
        assert len(turn_emails_to(anna)) == 1


def test_always_notify_sends_at_once(table: Any) -> None:
    with time_machine.travel(START, tick=False):
        t = table()
        bela = t.users[1]
        bela.always_notify = True
        bela.save(update_fields=["always_notify"])
        presence.mark(t.game.pk, bela.pk)
        play_turn(t)
        mail.outbox.clear()
        assert outbox.deliver_due().get("sent") == 1
        assert len(turn_emails_to(bela)) == 1


def test_a_reminder_is_never_held(table: Any) -> None:
    with time_machine.travel(START, tick=False):
        t = table()
        anna = t.users[0]
        game = t.refresh()
        game.deadline = START + timedelta(hours=5)
        game.save(update_fields=["deadline"])
        presence.mark(game.pk, anna.pk)
        seat = game.seats.get(index=0)
        outbox.reminder_due(game, seat, "5h")
        Notification.objects.filter(kind=NotificationKind.TURN).update(
            status=NotificationStatus.SENT
        )
        mail.outbox.clear()
        assert outbox.deliver_due() == {"sent": 1}
        assert len(turn_emails_to(anna)) == 1


def test_a_move_by_email_reply_does_not_hold_the_next_turn_email(
    table: Any, settings: Any
) -> None:
    """Anna replied to her turn email with her move, and Bela answered a minute later: Anna is
    an email player, nowhere near the page, and gets her next turn email at once."""
    settings.INBOUND_EMAIL_DOMAIN = "play.keltis.example"
    settings.INBOUND_AUTHSERV_ID = "mx.keltis.example"
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        anna = t.users[0]
        EmailAddress.objects.create(user=anna, email=anna.email, verified=True, primary=True)
        result = receive(reply(reply_address(t.game), anna.email, "red 5 big"))
        assert result.outcome == "applied"
        game = t.refresh()
        assert game.to_move == 1  # the reply took Anna's whole turn (the draw was the only one)
        assert Event.objects.filter(game=game, seat=0, source=EventSource.PLAYER).exists()
        clock.shift(timedelta(minutes=1))
        play_turn(t)  # Bela (as a program would, not on the page): Anna's turn again
        mail.outbox.clear()
        assert outbox.deliver_due().get("sent") == 1
        assert len(turn_emails_to(anna)) == 1
        game = t.refresh()
        row = Notification.objects.get(
            kind=NotificationKind.TURN, user=anna, seq=game.turn_seq, channel="email"
        )
        assert row.status == NotificationStatus.SENT


def test_a_cache_that_is_down_holds_nothing(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps are kept in the cache only: with it away, the move stands and the turn email
    goes at once."""

    class Down:
        def __getattr__(self, name: str) -> Any:
            raise ConnectionError("the cache is away")

    with time_machine.travel(START, tick=False) as clock:
        t = table()
        anna = t.users[0]
        monkeypatch.setattr(presence, "cache", Down())
        play_turn_on_page(t)  # Anna's step on the page is not recorded
        clock.shift(timedelta(minutes=1))
        play_turn(t)
        mail.outbox.clear()
        assert outbox.deliver_due().get("sent") == 1
        assert len(turn_emails_to(anna)) == 1
