"""One bad game never holds back another game's mail: an email that cannot be written (its
game's stored state cannot be replayed) fails alone, the batch goes on over the same SMTP
session, and the bad rows are retried on their schedule until they fail for staff to see. A row
whose sending kills the worker holds back no other row either. A real SMTP server on loopback."""

from __future__ import annotations

import contextlib
import itertools
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from games.models import Game, Snapshot
from notifications import emails, outbox
from notifications.models import Notification, NotificationStatus
from tests.notifications.conftest import SmtpServer, game_over_rows

pytestmark = pytest.mark.django_db

START = datetime(2030, 3, 4, 12, 0, tzinfo=UTC)


def break_game(game: Game) -> None:
    """Its stored state can no longer be read: the snapshot is garbage (events cannot be
    changed: a trigger refuses)."""
    Snapshot.objects.filter(game=game).update(data={"game": "keltis", "state": {}})


@pytest.mark.parametrize("order", ["BBHH", "BHBH", "BHHB", "HBBH", "HBHB", "HHBB"])
def test_a_broken_games_emails_never_hold_back_a_healthy_games(
    order: str, make_user: Any, smtp: SmtpServer, caplog: pytest.LogCaptureFixture
) -> None:
    broken = game_over_rows(make_user)[:2]
    healthy = game_over_rows(make_user)[:2]
    break_game(broken[0].game)
    pools = {"B": iter(broken), "H": iter(healthy)}
    ids = [next(pools[letter]).pk for letter in order]

    with caplog.at_level(logging.ERROR, logger="notifications.outbox"):
        assert outbox.deliver_many(ids) == {"sent": 2, "retry": 2}

    assert sorted(smtp.recipients) == sorted(row.user.email for row in healthy)
    assert len(smtp.peers) == 1  # a broken email is no reason to drop the SMTP session
    for row in broken:
        row.refresh_from_db()
        assert row.status == NotificationStatus.QUEUED and row.attempts == 1
        assert row.last_error.startswith("RenderError: KeyError")
    errors = [r for r in caplog.records if r.getMessage().startswith("email failed")]
    assert len(errors) == 2 and all(r.exc_info for r in errors)  # with the traceback


def test_a_broken_game_fails_alone_on_its_schedule_and_shows_up_as_failed(
    make_user: Any, smtp: SmtpServer
) -> None:
    """Sweep after sweep for two days the broken game's emails fail while each new healthy
    game's emails go out in the same sweeps; then the broken ones are failed and counted."""
    with time_machine.travel(START, tick=False) as clock:
        broken = game_over_rows(make_user)
        break_game(broken[0].game)
        healthy: list[Notification] = []
        for sweep in itertools.count():
            if timezone.now() >= START + timedelta(hours=49):
                break
            fresh = game_over_rows(make_user) if sweep % 8 == 0 else []  # every 5 hours
            healthy += fresh
            counts = outbox.deliver_due()
            assert counts.get("sent", 0) == len(fresh)
            clock.shift(timedelta(minutes=37))
        assert len(healthy) > 20

        assert sorted(smtp.recipients) == sorted(row.user.email for row in healthy)
        statuses = Notification.objects.filter(pk__in=[r.pk for r in broken])
        assert set(statuses.values_list("status", flat=True)) == {NotificationStatus.FAILED}
        assert outbox.failed_count() == len(broken)


class Killed(BaseException):
    """The worker process dies (e.g. the OOM killer): nothing of it runs any more."""


def test_a_row_whose_sending_kills_the_worker_holds_back_no_other(
    make_user: Any, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first sweep dies with the whole chunk claimed. After the sending timeout the rows
    are tried one claim each, so the others go out with the sweeps beat runs every minute while
    the killer keeps killing, until it fails for good after the retry period."""
    send = emails.send_notification

    def killing(notification: Notification, *args: Any) -> bool:
        if notification.pk == poison.pk:
            raise Killed
        return send(notification, *args)

    def sweep() -> None:
        with contextlib.suppress(Killed):  # the worker died: the next sweep runs anew
            outbox.deliver_due()

    def status(row: Notification) -> str:
        row.refresh_from_db()
        return row.status

    with time_machine.travel(START, tick=False) as clock:
        poison = game_over_rows(make_user)[0]
        others = game_over_rows(make_user)
        Notification.objects.exclude(pk__in=[poison.pk, *(r.pk for r in others)]).delete()
        Notification.objects.filter(pk=poison.pk).update(next_attempt_at=START - timedelta(1))
        monkeypatch.setattr(emails, "send_notification", killing)
        for _ in range(30):  # beat's sweep, every minute for half an hour
            sweep()
            clock.shift(timedelta(minutes=1))
        assert {status(row) for row in others} == {NotificationStatus.SENT}
        assert sorted(smtp.recipients) == sorted(row.user.email for row in others)

        while status(poison) != NotificationStatus.FAILED:
            assert timezone.now() < START + timedelta(hours=49)
            clock.shift(outbox.sending_timeout() + timedelta(seconds=1))
            sweep()
    assert "worker" in poison.last_error
    assert poison.failing_since is not None and poison.failed_at is not None
    assert poison.failed_at - poison.failing_since >= outbox.retry_period()
