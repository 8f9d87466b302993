"""Turn emails end to end on real services: a Celery worker process on Redis sending to an SMTP
server on loopback; links followed and confirmed; faults (SMTP refusing, the worker killed,
Redis restarted) after which every due email is sent once."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import EmailMode, User
from games.models import Event, Game
from games.services import game_create, game_join
from notifications.models import Notification, NotificationKind, NotificationStatus
from notifications.tasks import sweep_deliveries

from .conftest import wait_until

pytestmark = [
    pytest.mark.real_worker,
    pytest.mark.django_db(transaction=True),
    # the worker is another process: it needs a database server (CI runs PostgreSQL)
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

LINK = re.compile(r"http://testserver(/t/[^\s\"<>]+/)")


def player(name: str, **fields: Any) -> User:
    return User.objects.create_user(
        username=name, email=f"{name}@example.test", password="a long pass phrase",
        display_name=name.capitalize(), **fields,
    )


def text_part(message: Any) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no text part")


def start_duel() -> tuple[Game, User, User]:
    anna, bela = player("anna"), player("bela")
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def confirm(client: Client, path: str) -> str:
    """Open a link (changes nothing), then press the page's Confirm button (the POST)."""
    page = client.get(path)
    assert page.status_code == 200
    result = client.post(path)
    assert result.status_code == 200, result.content[:500]
    return result.content.decode()


def test_a_move_emails_the_next_player_whose_link_plays_the_turn(
    live_services: dict[str, Any],
) -> None:
    box = live_services["mailbox"]
    game, _, _ = start_duel()

    first = wait_until(lambda: box.to("anna@example.test"), 30, "anna's turn email")[0]
    assert "List-Unsubscribe=One-Click" in first["List-Unsubscribe-Post"]
    assert first["List-Unsubscribe"].strip().startswith("<http://testserver/email/unsubscribe/")
    links = LINK.findall(text_part(first))
    assert links, text_part(first)

    client = Client()  # not logged in: the link alone carries the right to this turn
    assert client.get(links[0]).status_code == 200
    assert not Event.objects.filter(game=game).exists()  # GET changed nothing
    page = client.post(links[0]).content.decode()
    # the move, and the draw when the site took it (the deck the only pile to draw from)
    assert Event.objects.filter(game=game).count() in (1, 2)
    # finish the turn from the page's own buttons (draw, perhaps a clover first)
    for _ in range(5):
        game.refresh_from_db()
        if game.to_move != 0:
            break
        next_paths = re.findall(r'action="(/t/[^"]+/)"', page)
        assert next_paths, page[:2000]
        page = client.post(next_paths[0]).content.decode()
    game.refresh_from_db()
    assert game.to_move == 1

    mail = wait_until(lambda: box.to("bela@example.test"), 30, "bela's turn email")
    assert len(mail) == 1
    # the used link is spent: it explains itself and changes nothing
    count = Event.objects.filter(game=game).count()
    assert client.post(links[0]).status_code in (400, 409, 410)
    assert Event.objects.filter(game=game).count() == count
    # one email per turn, however often the deliveries run
    sweep_deliveries.delay()
    sweep_deliveries.delay()
    wait_until(
        lambda: not Notification.objects.filter(status=NotificationStatus.QUEUED).exists(), 30
    )
    assert len(box.to("anna@example.test")) == 1 and len(box.to("bela@example.test")) == 1


def test_smtp_refusing_for_a_while_then_every_email_goes_once(
    live_services: dict[str, Any],
) -> None:
    box = live_services["mailbox"]
    box.refuse = True
    game, _, _ = start_duel()
    # the attempt is counted when the worker claims the row (status "sending") and the row
    # goes back to "queued" once the refusal is recorded: wait for the latter
    wait_until(
        lambda: Notification.objects.filter(
            game=game, attempts__gte=1, status=NotificationStatus.QUEUED
        ).exclude(last_error="").exists(),
        30,
        "a failed attempt",
    )
    turn = Notification.objects.get(game=game, kind=NotificationKind.TURN)
    assert turn.status == NotificationStatus.QUEUED and "451" in turn.last_error
    assert box.count() == 0

    box.refuse = False
    Notification.objects.filter(pk=turn.pk).update(next_attempt_at=timezone.now())  # back-off over
    sweep_deliveries.delay()
    wait_until(lambda: box.to("anna@example.test"), 30, "the retried email")
    sweep_deliveries.delay()
    wait_until(
        lambda: Notification.objects.get(pk=turn.pk).status == NotificationStatus.SENT, 30
    )
    assert len(box.to("anna@example.test")) == 1


def test_worker_killed_mid_send_then_every_email_goes_once(
    live_services: dict[str, Any],
) -> None:
    box, worker = live_services["mailbox"], live_services["worker"]
    box.delay = 3.0  # the SMTP server answers slowly: the kill lands during a send
    players = [player(f"p{i}", email_mode=EmailMode.EVERY_TURN) for i in range(6)]
    for a, b in zip(players[::2], players[1::2], strict=True):
        game = game_create(creator=a, kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=b)
    wait_until(
        lambda: Notification.objects.filter(status=NotificationStatus.SENDING).exists(), 30,
        "a send in progress",
    )
    worker.kill()
    assert Notification.objects.exclude(status=NotificationStatus.SENT).exists()

    box.delay = 0.0
    worker.start()
    # the claimed row of the dead worker is queued again after NOTIFICATION_SENDING_TIMEOUT
    for _ in range(20):
        sweep_deliveries.delay()
        if not Notification.objects.exclude(status=NotificationStatus.SENT).exists():
            break
        time.sleep(1)
    assert not Notification.objects.exclude(status=NotificationStatus.SENT).exists()
    for first in players[::2]:
        assert len(box.to(first.email)) == 1


def test_redis_down_loses_nothing(live_services: dict[str, Any]) -> None:
    box, redis = live_services["mailbox"], live_services["redis"]
    redis.stop()
    game, _, _ = start_duel()  # the move is stored; queuing its email fails quietly
    assert game.status == "running"
    assert Notification.objects.get(game=game).status == NotificationStatus.QUEUED

    redis.start()  # restarted, empty: the task that could not be queued is gone
    wait_until(lambda: "ready" in live_services["worker"].log.read_text(), 5, "the worker")
    sweep_deliveries.delay()  # what beat runs every minute
    wait_until(lambda: box.to("anna@example.test"), 60, "the email after Redis came back")
    assert len(box.to("anna@example.test")) == 1
