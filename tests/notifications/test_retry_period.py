"""A failing email is retried for NOTIFICATION_RETRY_HOURS (48 h) from its first failed attempt,
with a back-off that grows to an hour; then it is marked failed, and ``failed_count`` (for
/healthz) counts it. Time moves with time_machine; a real SMTP server on loopback refuses."""

from __future__ import annotations

import importlib
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from notifications import outbox
from notifications.models import Notification, NotificationStatus
from tests.notifications.conftest import SmtpServer, game_over_rows

pytestmark = pytest.mark.django_db

START = datetime(2030, 3, 4, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def sweep_until_settled(
    row: Notification, clock: Any, until: datetime
) -> list[tuple[datetime, str]]:
    """Run the sweep at each of the row's next attempts (as beat's every-minute sweep would)
    until it is no longer queued or ``until`` passes; (time, status after) per attempt."""
    attempts = []
    while timezone.now() <= until:
        outbox.deliver_due()
        row.refresh_from_db()
        attempts.append((timezone.now(), row.status))
        if row.status != NotificationStatus.QUEUED:
            break
        clock.move_to(row.next_attempt_at)
    return attempts


def test_a_refused_email_is_retried_for_48_hours_then_fails_and_is_counted(
    make_user: Any, smtp: SmtpServer
) -> None:
    smtp.refuse_all = True
    with time_machine.travel(START, tick=False) as clock:
        rows = game_over_rows(make_user)
        row = rows[0]

        attempts = sweep_until_settled(row, clock, START + 50 * HOUR)

        before = [status for at, status in attempts if at < START + 48 * HOUR]
        after = [(at, status) for at, status in attempts if at >= START + 48 * HOUR]
        assert set(before) == {NotificationStatus.QUEUED}  # still retrying, at 47 h too
        assert any(at >= START + 47 * HOUR for at, _ in attempts[: len(before)])
        [(failed_at, status)] = after  # the first attempt from 48 h on gives up
        assert status == NotificationStatus.FAILED and failed_at < START + 49 * HOUR
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(attempts)]
        assert gaps[:7] == [timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32, 60)]
        assert max(gaps) == HOUR  # the back-off stops growing at an hour
        row.refresh_from_db()
        assert row.failing_since == START and row.failed_at == failed_at
        assert "451" in row.last_error

        assert all(
            r.status == NotificationStatus.FAILED
            for r in Notification.objects.filter(pk__in=[r.pk for r in rows])
        )
        assert outbox.failed_count(days=7) == 4
        clock.move_to(failed_at + timedelta(days=8))
        assert outbox.failed_count(days=7) == 0  # only recent failures count
    assert smtp.recipients == []


def test_an_email_refused_for_47_hours_still_goes_out_once(
    make_user: Any, smtp: SmtpServer
) -> None:
    smtp.refuse_all = True
    with time_machine.travel(START, tick=False) as clock:
        row = game_over_rows(make_user)[0]
        sweep_until_settled(row, clock, START + 47 * HOUR)
        assert row.status == NotificationStatus.QUEUED
        assert outbox.failed_count() == 0

        smtp.refuse_all = False
        clock.move_to(row.next_attempt_at)
        outbox.deliver_due()

    row.refresh_from_db()
    assert row.status == NotificationStatus.SENT
    assert smtp.recipients.count(row.user.email) == 1


def test_the_retry_period_is_a_setting(make_user: Any, smtp: SmtpServer, settings: Any) -> None:
    settings.NOTIFICATION_RETRY_HOURS = 3
    smtp.refuse_all = True
    with time_machine.travel(START, tick=False) as clock:
        row = game_over_rows(make_user)[0]
        attempts = sweep_until_settled(row, clock, START + 50 * HOUR)
    at, status = attempts[-1]
    assert status == NotificationStatus.FAILED
    assert START + 3 * HOUR <= at < START + 4 * HOUR


def test_a_row_a_dead_worker_left_counts_as_a_failed_attempt(
    make_user: Any, smtp: SmtpServer
) -> None:
    """A worker that died holding a row leaves it 'sending'; the sweep takes it back after the
    sending timeout, says so in its last error and starts the retry period."""
    with time_machine.travel(START, tick=False) as clock:
        row = game_over_rows(make_user)[0]
        assert outbox._claim([row.pk], timezone.now()) == [row.pk]  # then the worker died

        clock.shift(outbox.sending_timeout() + timedelta(seconds=1))
        outbox.deliver_due()

    row.refresh_from_db()
    assert row.status == NotificationStatus.SENT and row.attempts == 2
    assert row.failing_since == START + outbox.sending_timeout() + timedelta(seconds=1)
    assert "worker" in row.last_error and "may have been sent" in row.last_error


def test_the_migration_dates_the_rows_given_up_before_it(make_user: Any) -> None:
    """Failed under the old policy (8 attempts), with no failed_at: the migration takes the
    row's last next_attempt_at, so ``failed_count`` counts what failed lately."""
    migration = importlib.import_module("games.migrations.0009_notification_failure_times")
    apps = (
        MigrationExecutor(connection)
        .loader.project_state(("games", "0009_notification_failure_times"))
        .apps
    )
    given_up = timezone.now() - timedelta(days=1)
    row = game_over_rows(make_user)[0]
    Notification.objects.filter(pk=row.pk).update(
        status=NotificationStatus.FAILED, next_attempt_at=given_up, attempts=8
    )

    migration.date_old_failures(apps, None)

    row.refresh_from_db()
    assert row.failed_at == given_up
    assert outbox.failed_count() == 1
