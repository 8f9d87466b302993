"""A batch of emails (one task's rows, one sweep) goes through one SMTP connection, and an email
the server refuses does not stop the rest of the batch (a real SMTP server on loopback)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications import emails, outbox
from notifications.models import Notification, NotificationStatus
from tests.notifications.conftest import SmtpServer as Server
from tests.notifications.conftest import game_over_rows

pytestmark = pytest.mark.django_db


def test_a_batch_of_emails_shares_one_connection(make_user: Any, smtp: Server) -> None:
    rows = game_over_rows(make_user)

    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 4}

    assert sorted(smtp.recipients) == sorted(r.user.email for r in rows)
    assert len(smtp.peers) == 1


def test_a_refused_email_is_retried_later_and_the_batch_goes_on(
    make_user: Any, smtp: Server
) -> None:
    rows = game_over_rows(make_user)
    refused = rows[1]
    smtp.refuse = {refused.user.email}

    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 3, "retry": 1}

    assert sorted(smtp.recipients) == sorted(r.user.email for r in rows if r != refused)
    assert len(smtp.peers) == 2  # the session after the refusal is a new one
    refused.refresh_from_db()
    assert (refused.status, refused.attempts) == (NotificationStatus.QUEUED, 1)


def test_a_batch_claims_its_rows_at_once_and_reads_the_game_once(
    make_user: Any, smtp: Server
) -> None:
    """Four "game over" emails: one claim, one read of the rows, and the game's seats, state
    and latest events read once for all four, not once per recipient."""
    rows = game_over_rows(make_user)

    with CaptureQueriesContext(connection) as queries:
        assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 4}

    sql = [q["sql"] for q in queries.captured_queries]
    assert sum(q.startswith('UPDATE "games_notification"') and "RETURNING" in q for q in sql) == 1
    reads = [q for q in sql if q.startswith("SELECT")]
    for table in ("games_notification", "games_seat", "games_snapshot", "games_event"):
        assert sum(f'FROM "{table}"' in q for q in reads) == 1, table
    assert not any(q.startswith("SELECT") and 'FROM "games_game"' in q for q in reads)
    assert sorted(smtp.recipients) == sorted(r.user.email for r in rows)


def test_a_row_is_claimed_once_and_only_when_queued_and_due(make_user: Any) -> None:
    rows = game_over_rows(make_user)
    first, later, sent, _ = rows
    Notification.objects.filter(pk=later.pk).update(
        next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    Notification.objects.filter(pk=sent.pk).update(status=NotificationStatus.SENT)
    ids = [r.pk for r in reversed(rows)]

    claimed = outbox._claim(ids, timezone.now())

    assert claimed == [r.pk for r in reversed(rows) if r not in (later, sent)]  # asked order
    assert outbox._claim(ids, timezone.now()) == []  # a second runner gets none of them
    first.refresh_from_db()
    assert (first.status, first.attempts) == (NotificationStatus.SENDING, 1)
    assert outbox.deliver_many(ids) == {"not_claimed": 4}


def test_a_batch_claims_a_chunk_at_a_time_and_still_reads_the_game_once(
    make_user: Any, smtp: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the first email is being sent only its chunk is 'sending': a worker that died
    there would leave the other rows queued for the next sweep, not held until the timeout."""
    rows = game_over_rows(make_user)
    monkeypatch.setattr(outbox, "CLAIM_CHUNK", 2)
    seen: list[list[str]] = []
    send = emails.send_notification

    def watching(notification: Notification, *args: Any) -> bool:
        statuses = Notification.objects.filter(pk__in=[r.pk for r in rows]).order_by("pk")
        seen.append(list(statuses.values_list("status", flat=True)))
        return send(notification, *args)

    monkeypatch.setattr(emails, "send_notification", watching)
    ids = sorted(r.pk for r in rows)

    with CaptureQueriesContext(connection) as queries:
        assert outbox.deliver_many(ids) == {"sent": 4}

    first = seen[0]
    assert first[:2] == [NotificationStatus.SENDING] * 2
    assert first[2:] == [NotificationStatus.QUEUED] * 2
    sql = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert sum('FROM "games_seat"' in q for q in sql) == 1  # shared across the chunks
    assert sorted(smtp.recipients) == sorted(r.user.email for r in rows)
