"""A digest reader's first digest waits for their digest hour, not for the first game."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine

from accounts.models import EmailMode
from notifications.digest import queue_digests
from notifications.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def digest_keys() -> list[str]:
    return list(
        Notification.objects.filter(kind=NotificationKind.DIGEST)
        .order_by("pk")
        .values_list("key", flat=True)
    )


def test_a_turn_that_begins_after_the_digest_hour_waits_for_the_next_one(table: Any) -> None:
    # Warsaw is UTC+1 in winter: the game starts at 23:00 local, the digest hour is 07:00
    started = dt.datetime(2030, 1, 10, 22, 0, tzinfo=UTC)
    with time_machine.travel(started, tick=False):
        t = table(email_mode=EmailMode.DAILY_DIGEST, time_zone="Europe/Warsaw", digest_hour=7)
    anna = t.users[0]
    assert t.game.turn_started_at == started
    assert queue_digests(started) == 0  # not at 23:00
    assert queue_digests(started + dt.timedelta(minutes=45)) == 0  # 23:45
    assert queue_digests(dt.datetime(2030, 1, 11, 5, 59, tzinfo=UTC)) == 0  # 06:59
    assert queue_digests(dt.datetime(2030, 1, 11, 6, 0, tzinfo=UTC)) == 1  # 07:00 next day
    assert digest_keys() == [f"digest:{anna.pk}:2030-01-11"]


def test_a_turn_waiting_at_the_digest_hour_is_still_caught_up_later_that_day(
    table: Any,
) -> None:
    """The sweep missed the hour (the beat was down): the digest comes at the next run."""
    started = dt.datetime(2030, 1, 10, 4, 0, tzinfo=UTC)  # 05:00 local, before the hour
    with time_machine.travel(started, tick=False):
        t = table(email_mode=EmailMode.DAILY_DIGEST, time_zone="Europe/Warsaw", digest_hour=7)
    assert queue_digests(dt.datetime(2030, 1, 10, 14, 0, tzinfo=UTC)) == 1  # 15:00 local
    assert digest_keys() == [f"digest:{t.users[0].pk}:2030-01-10"]
