"""Waking the delivery after a commit: at most one task waiting per shard of games.

Every move, start and table message queues its rows in its transaction and then wakes the
delivery (``tasks.wake``). A task for each was one Celery message, receipt and acknowledgement, and
one read of its game's rows, per email: the larger part of a worker's cost beside writing the
email when a season's close or a busy evening queues thousands (bench/email_fanout.py). Now a
wake publishes a task only when none is waiting for the game's shard (``game_id % SHARDS``);
the task, once begun, sends every due row of its shard's games, a chunk at a time
(``outbox.deliver_shard``). The shards let several workers share a burst. ``tasks.wake``
publishes; this module keeps the marks.

No wake is lost: the waiting mark (a cache key, ``cache.add``) is taken away by the task before
it reads the rows (``taken``). A wake that finds the mark comes after its own rows were
committed and before the waiting task reads, so that task sends them. A mark whose task was
lost (the publish failed: the mark is removed; a dead worker: Celery delivers the task again)
lapses after ``MARK_SECONDS``, and the minute's sweep sends what was left meanwhile. Web
servers and workers must share the cache (docs/operations.md), as they do for sessions. While the
cache is away every wake publishes (keltis_site.cache answers ``add`` with True), as before.
"""

from __future__ import annotations

from django.core.cache import cache

#: shards of games, each with at most one waiting task: as many workers can share a burst
SHARDS = 4
#: seconds a mark lasts: a task that waits longer in the queue (or never begins) lets the next
#: wake publish another, which finds what the first left. It also bounds the wait of a process
#: that, against docs/operations.md, has a cache of its own: the task removes the mark from the
#: shared cache, not from that one
MARK_SECONDS = 10


def shard_of(game_id: int) -> int:
    return game_id % SHARDS


def _mark(shard: int) -> str:
    return f"outbox:waiting:{shard}"


def mark_waiting(shard: int) -> bool:
    """Mark the shard's task as waiting: False when one already was (nothing to publish)."""
    return bool(cache.add(_mark(shard), 1, MARK_SECONDS))


def taken(shard: int) -> None:
    """A shard's task begins: wakes from now on publish anew."""
    cache.delete(_mark(shard))
