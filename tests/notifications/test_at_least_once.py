"""Delivery is at least once: an email the mail server accepted just before its worker died is
sent again, with the same Message-ID, so receivers can tell it is the same email. Outside that
window nothing goes twice: each row is marked sent right after its own send, and a worker that
stalls with claimed rows leaves them to the sweep. A real SMTP server on loopback."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from notifications import emails, outbox
from notifications.models import Notification, NotificationStatus
from tests.notifications.conftest import SITE, SmtpServer, game_over_rows

pytestmark = pytest.mark.django_db

START = datetime(2030, 3, 4, 12, 0, tzinfo=UTC)


class Killed(BaseException):
    """The worker process dies (SIGKILL, the OOM killer): nothing of it runs any more."""


def test_an_email_resent_after_its_worker_died_carries_the_same_message_id(
    make_user: Any, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = game_over_rows(make_user)[:2]
    Notification.objects.exclude(pk__in=[row.pk for row in rows]).delete()
    send = emails.send_notification
    deaths = []

    def dies_after_the_first_accept(notification: Notification, *args: Any) -> bool:
        sent = send(notification, *args)
        if not deaths:
            deaths.append(notification.pk)
            raise Killed  # the server said 250; the row was never marked sent
        return sent

    monkeypatch.setattr(emails, "send_notification", dies_after_the_first_accept)
    with time_machine.travel(START, tick=False) as clock:
        with pytest.raises(Killed):
            outbox.deliver_many([row.pk for row in rows])
        clock.shift(outbox.sending_timeout() + timedelta(seconds=1))
        assert outbox.deliver_due() == {"sent": 2}

    first, second = rows
    assert [m["To"] for m in smtp.messages] == [first.user.email] * 2 + [second.user.email]
    ids = [m["Message-ID"] for m in smtp.messages]
    domain = SITE.removeprefix("https://")
    assert ids[0] == ids[1] == f"<{first.key.replace(':', '.')}@{domain}>"
    assert ids[2] != ids[0]  # one Message-ID per email, not per game
    first.refresh_from_db()
    assert first.status == NotificationStatus.SENT
    assert "may have been sent" in first.last_error  # staff can see why it went twice


def test_each_email_is_marked_sent_before_the_next_one_is_sent(
    make_user: Any, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never at the end of a batch: a worker that dies mid-batch sends again only the email it
    was sending."""
    rows = sorted(game_over_rows(make_user), key=lambda row: row.pk)
    send = emails.send_notification
    seen: list[list[str]] = []

    def watching(notification: Notification, *args: Any) -> bool:
        statuses = Notification.objects.filter(pk__in=[r.pk for r in rows]).order_by("pk")
        seen.append(list(statuses.values_list("status", flat=True)))
        return send(notification, *args)

    monkeypatch.setattr(emails, "send_notification", watching)
    assert outbox.deliver_many([row.pk for row in rows]) == {"sent": 4}

    for done, statuses in enumerate(seen):
        assert statuses[:done] == [NotificationStatus.SENT] * done


def test_a_stalled_worker_leaves_its_claimed_rows_to_the_sweep(
    make_user: Any, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker freezes during its first send (a hung connection, a paused machine) for longer
    than the sending timeout; meanwhile the sweep takes its claimed rows back and another worker
    sends them. Woken, it finishes the one send it was in (the window left: that email goes
    twice) and sends none of the rest."""
    rows = sorted(game_over_rows(make_user), key=lambda row: row.pk)
    Notification.objects.exclude(pk__in=[row.pk for row in rows]).delete()
    send = emails.send_notification
    stalled: list[int] = []
    meanwhile: list[dict[str, int]] = []

    def stalls_once(notification: Notification, *args: Any) -> bool:
        if not stalled:
            stalled.append(notification.pk)
            clock.shift(outbox.sending_timeout() + timedelta(seconds=1))
            meanwhile.append(outbox.deliver_due())  # another worker's sweep
        return send(notification, *args)

    monkeypatch.setattr(emails, "send_notification", stalls_once)
    with time_machine.travel(START, tick=False) as clock:
        assert outbox.deliver_many([row.pk for row in rows]) == {"sent": 1, "claim_expired": 3}
    assert meanwhile == [{"sent": 4}]

    [first] = [row for row in rows if row.pk == stalled[0]]
    assert Counter(smtp.recipients) == {row.user.email: 2 if row == first else 1 for row in rows}
    statuses = Notification.objects.filter(pk__in=[r.pk for r in rows])
    assert set(statuses.values_list("status", flat=True)) == {NotificationStatus.SENT}


def test_an_smtp_session_cannot_hang_for_ever(smtp: SmtpServer) -> None:
    """A mail server that stops answering costs a worker at most EMAIL_TIMEOUT per step, far
    less than the sending timeout after which the sweep hands its rows to another worker."""
    with outbox.mail_session() as connection:
        timeout = getattr(connection, "timeout", None)
    assert timeout is not None
    assert timedelta(seconds=timeout) * 10 <= outbox.sending_timeout()
