"""The ways in: ``manage.py receive_mail`` on stdin and the SMTP listener, each playing a
whole game by reply; sysexits statuses and SMTP codes for what is refused."""

from __future__ import annotations

import io
import smtplib
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command

from games.engine.bots import RandomBot
from games.models import Event, GameStatus
from games.state import engine_state
from notifications.inbound.grammar import short_form
from notifications.inbound.smtpd import controller
from notifications.inbound.vocabulary import vocabulary
from tests.notifications.conftest import Table

from .conftest import reply, reply_address


def receive_mail(raw: bytes, *args: str) -> int:
    """``manage.py receive_mail`` with ``raw`` on stdin; its exit status."""
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
    try:
        call_command("receive_mail", *args, stdout=io.StringIO())
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.stdin = stdin
    return 0


@pytest.fixture
def listener() -> Iterator[Any]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    running = controller("127.0.0.1", port)
    running.start()
    yield running
    running.stop()


def smtp_send(listener: Any, raw: bytes, to: str, sender: str) -> None:
    with smtplib.SMTP(listener.hostname, listener.port) as client:
        client.sendmail(sender, [to], raw)


def whole_turn(t: Table, seed: int) -> list[str]:
    """A random whole turn of the seat to move, as reply lines (short forms in its player's
    language, every other turn the canonical spelling)."""
    game = t.refresh()
    engine = engine_state(game)
    seat, bot, actions = game.to_move, RandomBot(seed), []
    while not engine.finished and engine.to_move == seat:
        action = bot.choose(engine)
        engine.apply(action, player=seat)
        actions.append(action)
    words = vocabulary(t.users[seat].language or "en")
    return actions if seed % 2 else [short_form(a, words) for a in actions]


def play_by_reply(t: Table, send: Callable[[bytes, str, str], None]) -> int:
    turns = 0
    while t.refresh().status == GameStatus.RUNNING:
        game = t.game
        player = t.users[game.to_move]
        before = game.seq
        lines = whole_turn(t, turns)
        to = reply_address(game)
        send(
            reply(to, player.email, "\n".join(lines) + "\n\n-- \nsent by a test\n"),
            to,
            player.email,
        )
        assert t.refresh().seq == before + len(lines), f"turn {turns} not played: {lines}"
        turns += 1
    return turns


@pytest.mark.django_db(transaction=True)
def test_a_whole_game_by_smtp(players: Callable[..., Table], listener: Any) -> None:
    t = players("keltis-cards", language="pl")
    turns = play_by_reply(t, lambda raw, to, sender: smtp_send(listener, raw, to, sender))
    assert t.game.status == GameStatus.FINISHED and turns > 10
    assert Event.objects.filter(game=t.game).count() == t.game.seq


@pytest.mark.django_db
def test_a_whole_game_by_receive_mail(players: Callable[..., Table]) -> None:
    t = players("keltis", language="cs")

    def send(raw: bytes, to: str, sender: str) -> None:
        assert receive_mail(raw, "--recipient", to, "--sender", sender) == 0

    turns = play_by_reply(t, send)
    assert t.game.status == GameStatus.FINISHED and turns > 10


@pytest.mark.django_db
def test_receive_mail_exit_statuses(players: Callable[..., Table]) -> None:
    t = players()
    anna = t.users[0]
    assert receive_mail(reply(reply_address(t.game), anna.email, "purple")) == 0  # answered
    assert receive_mail(reply("play+1-0-0-x@play.keltis.example", anna.email, "help")) == 67
    assert receive_mail(b"not an email at all") == 65
    big = reply(reply_address(t.game), anna.email, "x" * 10_000_000)
    assert receive_mail(big) == 65
    assert Event.objects.filter(game=t.game).count() == 0


@pytest.mark.django_db
def test_receive_mail_says_try_again_when_the_database_is_away(
    players: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import OperationalError

    from notifications.inbound import handler

    t = players()

    def down(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(handler, "_claim", down)
    raw = reply(reply_address(t.game), t.users[0].email, "red 5 big")
    assert receive_mail(raw) == 75
    monkeypatch.undo()
    assert receive_mail(raw) == 0  # the retry plays it (and the only draw, taken for the player)
    assert Event.objects.filter(game=t.game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_listener_refuses_unknown_addresses_and_big_messages(
    players: Callable[..., Table], listener: Any, settings: Any
) -> None:
    t = players()
    anna = t.users[0]
    with smtplib.SMTP(listener.hostname, listener.port) as client:
        client.ehlo()
        client.mail(anna.email)
        assert client.rcpt("someone@play.keltis.example")[0] == 550
        assert client.rcpt("play+1-0-0-forged@play.keltis.example")[0] == 550
    big = reply(reply_address(t.game), anna.email, "x" * 2_000_000)
    with pytest.raises(smtplib.SMTPException):
        smtp_send(listener, big, reply_address(t.game), anna.email)
    auto = reply(
        reply_address(t.game), anna.email, "red 5 big", headers={"Auto-Submitted": "auto-replied"}
    )
    mail.outbox.clear()  # the game's start sent its turn email (transactions commit here)
    smtp_send(listener, auto, reply_address(t.game), anna.email)
    assert Event.objects.filter(game=t.game).count() == 0 and mail.outbox == []
