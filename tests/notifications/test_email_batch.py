"""A batch of emails goes through one SMTP connection, and so do the batches after it (a
worker's tasks, one game each, share the connection it keeps); each email is sent exactly
once, also when the mail server fails in the middle of a batch: the email that failed stays
due and the sweep sends it later, once.

The mail server is a fake ``smtplib.SMTP`` under Django's own SMTP backend: it counts the
connections opened and closed, and the messages each carried."""

from __future__ import annotations

import smtplib
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.mail.backends.smtp import EmailBackend
from django.utils import timezone

from notifications import outbox
from notifications.channels import email as email_channel
from notifications.models import Notification, NotificationKind, NotificationStatus
from tests.notifications.conftest import game_over_rows

pytestmark = pytest.mark.django_db
FINISHED = NotificationKind.FINISHED


class FakeServer:
    """What every connection of the fake delivered; ``fail_at``: the deliveries (counted from
    1) at which the server drops the connection instead."""

    def __init__(self) -> None:
        self.connections: list[FakeSmtp] = []
        self.delivered: list[str] = []
        self.fail_at: set[int] = set()
        self.attempts = 0

    @property
    def open_connections(self) -> int:
        return sum(1 for c in self.connections if not c.closed)


SERVER = FakeServer()


class FakeSmtp:
    def __init__(self, host: str, port: int, **params: Any) -> None:
        self.closed = False
        self.quit_sent = False
        self.messages: list[str] = []
        SERVER.connections.append(self)

    def sendmail(self, sender: str, recipients: list[str], message: bytes) -> dict[str, Any]:
        if self.closed:
            raise smtplib.SMTPServerDisconnected("please run connect() first")
        SERVER.attempts += 1
        if SERVER.attempts in SERVER.fail_at:
            self.closed = True
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        self.messages += recipients
        SERVER.delivered += recipients
        return {}

    def noop(self) -> tuple[int, bytes]:
        if self.closed:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return 250, b"OK"

    def quit(self) -> None:
        if self.closed:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        self.quit_sent = self.closed = True

    def close(self) -> None:
        self.closed = True


class FakeSmtpBackend(EmailBackend):
    """Django's SMTP backend with the fake in place of ``smtplib.SMTP``."""

    @property
    def connection_class(self) -> type[FakeSmtp]:
        return FakeSmtp


@pytest.fixture(autouse=True)
def fake_smtp(settings: Any) -> Iterator[FakeServer]:
    global SERVER
    SERVER = FakeServer()
    email_channel.close_kept()
    settings.EMAIL_BACKEND = f"{__name__}.FakeSmtpBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "mail.example", 2525
    yield SERVER
    email_channel.close_kept()


def game_over_batches(make_user: Any, games: int) -> list[list[Notification]]:
    """``games`` games over, four "game over" rows each; their first turn's rows (queued
    when they started, long sent in truth) are out of the way of the sweep."""
    batches = [game_over_rows(make_user) for _ in range(games)]
    Notification.objects.exclude(kind=FINISHED).update(status=NotificationStatus.SENT)
    return batches


def sent_rows() -> int:
    return Notification.objects.filter(kind=FINISHED, status=NotificationStatus.SENT).count()


def queued(rows: list[Notification]) -> list[Notification]:
    return list(
        Notification.objects.filter(pk__in=[r.pk for r in rows], status=NotificationStatus.QUEUED)
    )


def test_a_batch_goes_through_one_connection_and_each_email_once(
    make_user: Any, fake_smtp: FakeServer
) -> None:
    rows = [row for batch in game_over_batches(make_user, 3) for row in batch]

    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 12}

    assert len(fake_smtp.connections) == 1
    assert Counter(fake_smtp.delivered) == Counter(r.user.email for r in rows)
    assert max(Counter(fake_smtp.delivered).values()) == 1
    assert sent_rows() == 12


def test_the_batches_of_a_worker_share_its_connection(
    make_user: Any, fake_smtp: FakeServer
) -> None:
    """One task per game, as a move queues them: still one connection, kept open between."""
    batches = game_over_batches(make_user, 4)

    for batch in batches:
        assert outbox.deliver_many([r.pk for r in batch]) == {"sent": 4}

    assert len(fake_smtp.connections) == 1
    assert len(fake_smtp.connections[0].messages) == 16
    assert fake_smtp.open_connections == 1  # kept for the next batch
    email_channel.close_kept()
    assert fake_smtp.connections[0].quit_sent


def test_a_failure_mid_batch_leaves_that_email_due_and_the_sweep_sends_it_once(
    make_user: Any, fake_smtp: FakeServer
) -> None:
    rows = [row for batch in game_over_batches(make_user, 2) for row in batch]
    fake_smtp.fail_at = {3}  # the server drops the connection at the third email

    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 7, "retry": 1}

    (failed,) = queued(rows)
    assert failed.attempts == 1 and failed.last_error.startswith("SMTPServerDisconnected")
    assert failed.user.email not in fake_smtp.delivered
    assert len(fake_smtp.connections) == 2  # the rest of the batch on a new one
    assert outbox.deliver_due() == {}  # not due before its back-off
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        assert outbox.deliver_due() == {"sent": 1}
        assert outbox.deliver_due() == {}
    assert Counter(fake_smtp.delivered) == Counter(r.user.email for r in rows)
    assert max(Counter(fake_smtp.delivered).values()) == 1
    assert sent_rows() == 8


def test_a_server_gone_mid_batch_leaves_the_rest_due_for_the_sweep(
    make_user: Any, fake_smtp: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [row for batch in game_over_batches(make_user, 2) for row in batch]
    fake_smtp.fail_at = set(range(3, 100))  # from the third email on, every attempt fails

    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 2, "retry": 6}

    assert len(fake_smtp.delivered) == 2
    assert len(queued(rows)) == 6
    fake_smtp.fail_at = set()
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        assert outbox.deliver_due() == {"sent": 6}
    assert Counter(fake_smtp.delivered) == Counter(r.user.email for r in rows)
    assert max(Counter(fake_smtp.delivered).values()) == 1


def test_a_kept_connection_the_server_dropped_is_replaced_before_it_is_used(
    make_user: Any, fake_smtp: FakeServer
) -> None:
    first, second = game_over_batches(make_user, 2)
    assert outbox.deliver_many([r.pk for r in first]) == {"sent": 4}
    fake_smtp.connections[0].closed = True  # the server hung up while it was idle
    email_channel._kept.idle_since -= email_channel.CHECK_AFTER_IDLE_SECONDS + 1

    assert outbox.deliver_many([r.pk for r in second]) == {"sent": 4}

    assert len(fake_smtp.connections) == 2
    assert len(fake_smtp.connections[1].messages) == 4


def test_a_long_idle_connection_is_not_reused(make_user: Any, fake_smtp: FakeServer) -> None:
    first, second = game_over_batches(make_user, 2)
    assert outbox.deliver_many([r.pk for r in first]) == {"sent": 4}
    email_channel._kept.idle_since -= email_channel.MAX_IDLE_SECONDS + 1

    assert outbox.deliver_many([r.pk for r in second]) == {"sent": 4}

    assert [len(c.messages) for c in fake_smtp.connections] == [4, 4]
    assert fake_smtp.connections[0].quit_sent


def test_a_forked_worker_opens_its_own_connection(
    make_user: Any, fake_smtp: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent's session is the parent's: a child neither uses it nor says QUIT on it."""
    first, second = game_over_batches(make_user, 2)
    assert outbox.deliver_many([r.pk for r in first]) == {"sent": 4}
    monkeypatch.setattr(email_channel.os, "getpid", lambda: -1)

    assert outbox.deliver_many([r.pk for r in second]) == {"sent": 4}

    assert [len(c.messages) for c in fake_smtp.connections] == [4, 4]
    assert not fake_smtp.connections[0].closed


def test_other_mail_settings_get_a_connection_of_their_own(
    make_user: Any, fake_smtp: FakeServer, settings: Any
) -> None:
    first, second = game_over_batches(make_user, 2)
    assert outbox.deliver_many([r.pk for r in first]) == {"sent": 4}
    settings.EMAIL_HOST = "other-mail.example"

    assert outbox.deliver_many([r.pk for r in second]) == {"sent": 4}

    assert [len(c.messages) for c in fake_smtp.connections] == [4, 4]
    assert fake_smtp.connections[0].quit_sent


def test_a_connection_carries_at_most_so_many_emails(
    make_user: Any, fake_smtp: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(email_channel, "MAX_EMAILS_PER_CONNECTION", 4)
    first, second = game_over_batches(make_user, 2)

    for batch in (first, second):
        assert outbox.deliver_many([r.pk for r in batch]) == {"sent": 4}

    assert [len(c.messages) for c in fake_smtp.connections] == [4, 4]
