"""The channel-neutral outbox: a row per (seat, turn, kind, channel), created in the move's
transaction for each channel the player has on, sent by the channel's own sender with the
email's discipline (claim once, back-off, sweep, permanent failures given up at once)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from notifications import channels, outbox, senders
from notifications.models import (
    ChannelMode,
    Notification,
    NotificationKind,
    NotificationStatus,
)
from tests.notifications.conftest import play_turn

pytestmark = pytest.mark.django_db


class FakeSender(channels.SimpleSender):
    """A channel whose far end answers what the test says: each send pops the next answer."""

    name = "webhook"

    def __init__(self) -> None:
        self.sent: list[Notification] = []
        self.answers: list[Exception | None] = []
        self.batches = 0

    def send(self, notification: Notification) -> None:
        answer = self.answers.pop(0) if self.answers else None
        if answer is not None:
            raise answer
        self.sent.append(notification)

    @contextlib.contextmanager
    def batch(self) -> Iterator[channels.Send]:
        self.batches += 1
        yield self.send


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeSender:
    sender = FakeSender()
    real = senders.registry

    def registry() -> dict[str, Any]:
        return {**real(), "webhook": sender}

    monkeypatch.setattr(senders, "registry", registry)
    return sender


@pytest.fixture(autouse=True)
def _not_quiet(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0  # quiet while active: test_quiet_while_active.py


def choose(user: Any, channel: str, mode: str) -> None:
    user.channel_modes = {**user.channel_modes, channel: mode}
    user.save(update_fields=["channel_modes"])


def test_a_turn_makes_a_row_per_channel_the_player_has_on(
    table: Any, fake: FakeSender, django_capture_on_commit_callbacks: Any
) -> None:
    t = table()
    anna, bela = t.users
    choose(bela, "webhook", ChannelMode.EVERY_TURN)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(t)  # Anna plays: Bela's turn

    game = t.refresh()
    rows = Notification.objects.filter(user=bela, kind=NotificationKind.TURN)
    keys = {row.channel: row.key for row in rows}
    base = f"turn:{game.pk}:1:{game.turn_seq}"
    assert keys == {"email": base, "webhook": f"webhook:{base}"}
    assert {row.status for row in rows} == {NotificationStatus.SENT}
    assert [row.key for row in fake.sent] == [f"webhook:{base}"]
    assert [m.to for m in mail.outbox] == [[bela.email]]
    # Anna has no webhook on: only her email rows exist
    assert set(Notification.objects.filter(user=anna).values_list("channel", flat=True)) == {
        "email"
    }


def test_a_digest_or_off_choice_queues_no_turn_row_on_that_channel(
    table: Any, fake: FakeSender
) -> None:
    t = table()
    bela = t.users[1]
    choose(bela, "webhook", ChannelMode.DAILY_DIGEST)
    play_turn(t)
    assert not Notification.objects.filter(user=bela, channel="webhook").exists()
    assert Notification.objects.filter(user=bela, channel="email").exists()


def test_a_channel_the_registry_does_not_list_gets_no_rows(table: Any, settings: Any) -> None:
    """Without a VAPID key the site cannot push: a push choice stored for a player queues
    nothing (nothing would ever send it)."""
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_KEY_FILE = ""
    t = table()
    bela = t.users[1]
    choose(bela, "push", ChannelMode.EVERY_TURN)
    play_turn(t)
    assert "push" not in senders.registry()
    assert not Notification.objects.filter(user=bela, channel="push").exists()


def _webhook_row(table: Any, fake: FakeSender) -> Notification:
    t = table()
    choose(t.users[1], "webhook", ChannelMode.EVERY_TURN)
    fake.answers = [ConnectionError("far end down")]
    play_turn(t)
    outbox.deliver_due()
    return Notification.objects.get(user=t.users[1], channel="webhook")


def test_a_failing_far_end_is_retried_with_a_back_off_by_the_sweep(
    table: Any, fake: FakeSender
) -> None:
    row = _webhook_row(table, fake)
    assert (row.status, row.attempts) == (NotificationStatus.QUEUED, 1)
    assert "far end down" in row.last_error
    assert row.next_attempt_at > timezone.now()
    assert outbox.deliver_due() == {}  # not due yet: nothing is tried
    with time_machine.travel(row.next_attempt_at + timedelta(seconds=1)):
        assert outbox.deliver_due().get("sent") == 1
    row.refresh_from_db()
    assert row.status == NotificationStatus.SENT
    assert [r.pk for r in fake.sent] == [row.pk]


def test_a_permanent_failure_is_given_up_at_once(table: Any, fake: FakeSender) -> None:
    t = table()
    choose(t.users[1], "webhook", ChannelMode.EVERY_TURN)
    fake.answers = [channels.PermanentFailure("gone")]
    play_turn(t)
    outbox.deliver_due()
    row = Notification.objects.get(user=t.users[1], channel="webhook")
    assert row.status == NotificationStatus.FAILED and row.failed_at is not None
    assert outbox.failed_count() == 1


def test_skipped_and_a_second_runner(table: Any, fake: FakeSender) -> None:
    t = table()
    choose(t.users[1], "webhook", ChannelMode.EVERY_TURN)
    fake.answers = [channels.Skipped()]
    play_turn(t)
    row = Notification.objects.get(user=t.users[1], channel="webhook")
    assert outbox.deliver(row.pk) == "skipped"
    assert outbox.deliver(row.pk) == "not_claimed"
    assert fake.sent == []


def test_rows_of_several_channels_share_one_batch_each(table: Any, fake: FakeSender) -> None:
    t = table()
    for user in t.users:
        choose(user, "webhook", ChannelMode.EVERY_TURN)
    game = t.refresh()
    Notification.objects.update(status=NotificationStatus.SENT)  # the game's start: done
    outbox.game_finished(game, list(game.seats.select_related("user")))
    counts = outbox.deliver_due()
    assert counts == {"sent": 2, "skipped": 2}  # the emails: the game is not over
    assert fake.batches == 1 and len(fake.sent) == 2


def test_a_daily_digest_on_another_channel_is_a_row_of_its_own(
    table: Any, fake: FakeSender
) -> None:
    from notifications import digest

    t = table()
    anna = t.users[0]  # to move
    anna.digest_hour = 0
    anna.save(update_fields=["digest_hour"])
    choose(anna, "webhook", ChannelMode.DAILY_DIGEST)
    now = timezone.now() + timedelta(days=1)  # her turn was waiting at the digest hour
    assert digest.queue_digests(now) == 1
    assert digest.queue_digests(now) == 0  # once a day
    row = Notification.objects.get(kind=NotificationKind.DIGEST)
    assert (row.channel, row.key) == ("webhook", f"webhook:digest:{anna.pk}:{now.date()}")
    outbox.deliver_due()
    assert [r.pk for r in fake.sent] == [row.pk]
