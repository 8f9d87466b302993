"""The task after a move (``tasks.deliver_game_notifications``) reads its game's rows with
queries compiled once (``outbox.deliver_game``): it sends what ``deliver_many`` sent, in the
order queued, never a row another runner holds, in as many statements. A turn email's HTML
part keeps its lines short enough (RFC 5322: 998) to go out as 8bit, not quoted-printable."""

from __future__ import annotations

import email
from email import policy
from typing import Any

import pytest
from django.core import mail

from notifications import outbox
from notifications.models import Notification, NotificationKind, NotificationStatus
from notifications.tasks import deliver_game_notifications
from tests.notifications.conftest import Table, game_over_rows, play_turn, turn_notification

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_quiet(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0


def _only_game_over_queued() -> None:
    Notification.objects.exclude(kind=NotificationKind.FINISHED).update(
        status=NotificationStatus.SENT
    )


def test_the_task_sends_the_games_rows_in_the_order_queued(make_user: Any) -> None:
    rows = game_over_rows(make_user)
    _only_game_over_queued()
    mail.outbox.clear()
    assert deliver_game_notifications(rows[0].game_id) == {"sent": 4}
    assert [m.to[0] for m in mail.outbox] == [r.user.email for r in rows]
    assert set(Notification.objects.filter(pk__in=[r.pk for r in rows]).values_list(
        "status", flat=True
    )) == {NotificationStatus.SENT}  # fmt: skip
    claimed = Notification.objects.get(pk=rows[0].pk)
    assert claimed.attempts == 1 and claimed.sent_at is not None


def test_a_row_another_runner_holds_is_left_to_it(make_user: Any) -> None:
    """Claimed elsewhere between the task's read and its claim: 'sending' like the task's own
    rows, read with them, and still not sent here."""
    rows = game_over_rows(make_user)
    _only_game_over_queued()
    theirs = rows[1]
    real_claim = outbox._claim

    def claim_after_another(ids: list[int], now: Any) -> list[int]:
        Notification.objects.filter(pk=theirs.pk).update(status=NotificationStatus.SENDING)
        return real_claim(ids, now)

    mail.outbox.clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outbox, "_claim", claim_after_another)
        assert deliver_game_notifications(rows[0].game_id) == {"sent": 3, "not_claimed": 1}
    assert theirs.user.email not in [m.to[0] for m in mail.outbox]
    assert Notification.objects.get(pk=theirs.pk).status == NotificationStatus.SENDING


def test_the_tasks_statements(make_user: Any, django_assert_num_queries: Any) -> None:
    """The game's queued ids, the claim, the claimed rows, the game's three reads, one update
    per email: as many as before, each of the task's own compiled once."""
    rows = game_over_rows(make_user)
    _only_game_over_queued()
    with django_assert_num_queries(1 + 1 + 1 + 3 + len(rows)):
        assert deliver_game_notifications(rows[0].game_id) == {"sent": 4}


def test_a_turn_emails_html_goes_out_as_8bit(table: Any) -> None:
    """The hand, the links and the event list are long lines without their line breaks
    (inside the tags or between list items, where a browser shows none): Django then wrote
    the whole HTML part quoted-printable, a tenth of a turn email's CPU."""
    t: Table = table()
    for seed in range(1, 4):
        play_turn(t, seed=seed)
    Notification.objects.update(status=NotificationStatus.SENT)
    row = turn_notification(t)
    mail.outbox.clear()
    assert deliver_game_notifications(row.game_id) == {"sent": 1}
    [message] = mail.outbox
    parsed = email.message_from_bytes(message.message().as_bytes(), policy=policy.default)
    html_part = parsed.get_body(preferencelist=("html",))
    assert html_part is not None
    assert html_part["Content-Transfer-Encoding"] == "8bit"
    html = html_part.get_content()
    assert html.count("/t/") >= 4  # the action links are there
    assert max(len(line) for line in html.splitlines()) <= 998
