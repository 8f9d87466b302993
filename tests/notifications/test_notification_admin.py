"""The email outbox in the admin: staff find the emails given up for good with their last
error, and queue them again; rows are never added, edited or deleted there."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from notifications.models import Notification, NotificationKind, NotificationStatus

pytestmark = pytest.mark.django_db

LIST = reverse("admin:notifications_notification_changelist")


@pytest.fixture
def rows(make_user: Any) -> dict[str, Notification]:
    """A failed, a sent and a queued email."""
    user = make_user()
    now = timezone.now()

    def row(name: str, status: str, **fields: Any) -> Notification:
        return Notification.objects.create(
            key=f"digest:{user.pk}:{name}", kind=NotificationKind.DIGEST, user=user,
            status=status, attempts=fields.pop("attempts", 1), **fields,
        )  # fmt: skip

    return {
        "failed": row(
            "failed",
            NotificationStatus.FAILED,
            attempts=53,
            failing_since=now,
            failed_at=now,
            last_error="SMTPRecipientsRefused: 550 mailbox unavailable",
        ),
        "sent": row("sent", NotificationStatus.SENT, sent_at=now, last_error="Timeout: once"),
        "queued": row("queued", NotificationStatus.QUEUED, last_error="SMTPDataError: 451"),
    }


@pytest.fixture
def admin_client(client: Client, make_user: Any) -> Client:
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def test_staff_list_the_failed_emails_with_their_last_error(
    admin_client: Client, rows: dict[str, Notification]
) -> None:
    page = admin_client.get(LIST, {"status__exact": NotificationStatus.FAILED})

    assert page.status_code == 200
    html = page.content.decode()
    assert "550 mailbox unavailable" in html
    assert "SMTPDataError" not in html and "Timeout: once" not in html  # the others, filtered
    assert "?status__exact=failed" in admin_client.get(LIST).content.decode()  # the filter


def test_the_requeue_action_queues_the_selected_failed_emails_again(
    admin_client: Client, rows: dict[str, Notification]
) -> None:
    selected = [rows["failed"].pk, rows["sent"].pk]

    response = admin_client.post(
        LIST, {"action": "requeue", "_selected_action": selected}, follow=True
    )

    assert "Failed emails queued again: 1." in response.content.decode()
    failed = Notification.objects.get(pk=rows["failed"].pk)
    assert failed.status == NotificationStatus.QUEUED and failed.attempts == 0
    assert failed.next_attempt_at <= timezone.now()
    assert failed.failing_since is None and failed.failed_at is None  # a new retry period
    sent = Notification.objects.get(pk=rows["sent"].pk)
    assert sent.status == NotificationStatus.SENT  # a sent email is never sent again


def test_staff_who_may_only_view_cannot_requeue(
    client: Client, make_user: Any, rows: dict[str, Notification]
) -> None:
    staff = make_user("viewer", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_notification"))
    client.force_login(staff)

    assert client.get(LIST).status_code == 200
    client.post(LIST, {"action": "requeue", "_selected_action": [rows["failed"].pk]})

    assert Notification.objects.get(pk=rows["failed"].pk).status == NotificationStatus.FAILED


def test_outbox_rows_are_never_added_edited_or_deleted_in_the_admin(
    admin_client: Client, rows: dict[str, Notification]
) -> None:
    row = rows["failed"]
    assert admin_client.get(reverse("admin:notifications_notification_add")).status_code == 403
    change = reverse("admin:notifications_notification_change", args=[row.pk])
    admin_client.post(change, {"status": NotificationStatus.SENT, "key": "other"})
    assert (
        admin_client.post(
            reverse("admin:notifications_notification_delete", args=[row.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    row.refresh_from_db()
    assert (row.key, row.status) == (f"digest:{row.user_id}:failed", NotificationStatus.FAILED)
