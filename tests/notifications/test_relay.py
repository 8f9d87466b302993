"""Waking the delivery (``notifications.relay``): one task waits per shard of games however
many commits wake it, and once begun it sends every due row of its shard's games, those of the
wakes that found it waiting included."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from notifications import outbox, relay, tasks
from notifications.models import Notification, NotificationKind, NotificationStatus
from tests.notifications.conftest import game_over_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_quiet(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The shards whose task was queued (not run)."""
    shards: list[int] = []
    monkeypatch.setattr(tasks.deliver_shard, "delay", shards.append)
    for shard in range(relay.SHARDS):
        relay.taken(shard)  # no mark left by another test in a shared cache
    return shards


def _games_over(make_user: Any, count: int) -> list[list[Notification]]:
    games = [game_over_rows(make_user) for _ in range(count)]
    Notification.objects.exclude(kind=NotificationKind.FINISHED).update(
        status=NotificationStatus.SENT
    )
    return games


def test_one_task_waits_for_a_shard_however_many_wakes(published: list[int]) -> None:
    tasks.wake(4)
    tasks.wake(8)
    tasks.wake(12)
    assert published == [0]
    relay.taken(0)  # the task began: the next wake needs a task of its own
    tasks.wake(4)
    assert published == [0, 0]


def test_each_shard_has_a_task_of_its_own(published: list[int]) -> None:
    for game_id in range(1, 9):
        tasks.wake(game_id)
    assert sorted(published) == [0, 1, 2, 3]


def test_a_publish_that_failed_leaves_no_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    relay.taken(1)

    def broker_down(shard: int) -> None:
        raise ConnectionError("the broker is away")

    monkeypatch.setattr(tasks.deliver_shard, "delay", broker_down)
    with pytest.raises(ConnectionError):
        tasks.wake(1)
    shards: list[int] = []
    monkeypatch.setattr(tasks.deliver_shard, "delay", shards.append)
    tasks.wake(1)
    assert shards == [1]


def test_the_task_sends_its_shards_first_attempts_only(
    make_user: Any, published: list[int]
) -> None:
    games = _games_over(make_user, 2)
    mine, other = games[0], games[1]
    shard = relay.shard_of(mine[0].game_id)
    assert relay.shard_of(other[0].game_id) != shard  # consecutive ids, four shards
    retried, held = mine[2], mine[3]
    Notification.objects.filter(pk=retried.pk).update(attempts=1)
    later = timezone.now() + timedelta(minutes=5)
    Notification.objects.filter(pk=held.pk).update(next_attempt_at=later)
    mail.outbox.clear()
    assert tasks.deliver_shard(shard) == {"sent": 2}
    assert [m.to[0] for m in mail.outbox] == [mine[0].user.email, mine[1].user.email]
    statuses = dict(Notification.objects.values_list("pk", "status"))
    assert {statuses[r.pk] for r in other} == {NotificationStatus.QUEUED}  # another shard's
    assert statuses[retried.pk] == statuses[held.pk] == NotificationStatus.QUEUED  # the sweep's


def test_the_rows_of_a_wake_that_found_the_task_waiting_go_with_it(
    make_user: Any, published: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay, "SHARDS", 1)
    first = _games_over(make_user, 1)[0]
    tasks.wake(first[0].game_id)
    second = _games_over(make_user, 1)[0]  # committed while the task waits
    tasks.wake(second[0].game_id)
    assert published == [0]
    mail.outbox.clear()
    assert tasks.deliver_shard(0) == {"sent": 8}
    assert [m.to[0] for m in mail.outbox] == [r.user.email for r in first + second]


def test_a_long_burst_goes_on_in_a_task_of_its_own(
    make_user: Any, published: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay, "SHARDS", 1)
    monkeypatch.setattr(outbox, "SHARD_TASK_ROWS", 4)
    monkeypatch.setattr(outbox, "CLAIM_CHUNK", 3)
    games = _games_over(make_user, 2)
    mail.outbox.clear()
    assert tasks.deliver_shard(0) == {"sent": 6}  # two chunks, then the turn is over
    assert published == [0]
    assert tasks.deliver_shard(0) == {"sent": 2}
    assert [m.to[0] for m in mail.outbox] == [r.user.email for r in games[0] + games[1]]
