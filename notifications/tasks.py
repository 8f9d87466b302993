"""Celery tasks of the outbox: deliver what a move made due, and the periodic sweeps.

Idempotent like every task: a row is claimed by one conditional update, so a task run twice
sends one email. The periodic ones run from Celery beat (settings.CELERY_BEAT_SCHEDULE).
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from games.tasks import log_sweep

from . import digest, outbox, relay


@shared_task(acks_late=True, ignore_result=True)
def deliver_game_notifications(game_id: int) -> dict[str, int]:
    """Send the messages one game's last action made due (queued in its transaction), on
    every channel; rows held for later (quiet while active) are left to the sweep. What a
    commit makes due now goes by its shard's task (``deliver_shard``); this one still runs
    the tasks a release before it queued."""
    return outbox.deliver_game(game_id)  # each email logs its own line, with the game id


@shared_task(acks_late=True, ignore_result=True)
def deliver_shard(shard: int) -> dict[str, int]:
    """Send what became due in the games of one shard (``notifications.relay``): queued by the
    first wake after the shard's last task began, it sends the rows of every wake since."""
    relay.taken(shard)  # before the rows are read: a wake from now on queues a task anew
    counts = outbox.deliver_shard(shard, relay.SHARDS)
    if counts.pop("more", 0):
        wake_shard(shard)  # the rest, by a task of its own
    return counts


@shared_task(ignore_result=True)
def sweep_deliveries() -> dict[str, int]:
    """Periodic: whatever a dead worker, a down broker or a refusing far end left, and the
    turn messages held while their player was at the game."""
    counts = outbox.deliver_due()
    log_sweep("delivery sweep", counts)
    return counts


@shared_task(ignore_result=True)
def queue_digests() -> int:
    """Periodic: the daily digests that are due in their players' time zones."""
    count = digest.queue_digests(timezone.now())
    log_sweep("digest queueing", count)
    outbox.deliver_due()
    return count


def after_action(game_id: int, seq: int, automatic_next: bool | None = None) -> None:
    """After-commit hook (games.services.AFTER_COMMIT_HOOKS) of a game's start and of every
    action that passed the turn: send the messages its transaction made due."""
    wake(game_id)


def wake(game_id: int) -> None:
    """After the commit that queued the game's rows: have them sent, by its shard's task
    (``notifications.relay``)."""
    wake_shard(relay.shard_of(game_id))


def wake_shard(shard: int) -> None:
    if not relay.mark_waiting(shard):
        return  # a task for the shard waits: it reads after this wake's commit
    try:
        deliver_shard.delay(shard)
    except BaseException:
        relay.taken(shard)  # the next wake publishes; the sweep sends meanwhile
        raise
