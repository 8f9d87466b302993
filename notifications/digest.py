"""The daily digest: one message a day listing every game waiting for the player.

For players who chose it instead of a message every turn, on email (``User.email_mode``) or
on another channel (``User.channel_modes``), each channel's digest a row of its own.
``queue_digests`` runs often (every 15 minutes) and queues, per player and channel, at most
one digest per local calendar day, once their own clock has reached their digest hour; the
row's unique key makes a second run a no-op. A digest is the news of its hour: only a turn
that was already waiting at today's digest hour makes one due, so a turn that begins later
in the day (a first game starting at 23:00 for a 07:00 reader) waits for the next digest
hour instead of bringing a digest at once. The message itself is written when it is sent
(``notifications.emails``, ``notifications.channels.messages``), from the games still
waiting then.
"""

from __future__ import annotations

import zoneinfo
from datetime import date, datetime, time

from django.db.models import Exists, Min, OuterRef

from accounts.models import EmailMode, User

from .models import Channel, ChannelMode, Notification, NotificationKind
from .reader import waiting_games, waiting_seats
from .senders import registry

__all__ = ["digest_key", "queue_digests", "waiting_games"]  # waiting_games: its old home


def digest_key(user_id: int, day: date) -> str:
    return f"digest:{user_id}:{day.isoformat()}"


def _local(now: datetime, time_zone: str) -> datetime:
    try:
        return now.astimezone(zoneinfo.ZoneInfo(time_zone or "UTC"))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return now.astimezone(zoneinfo.UTC)


def _digest_moment(local: datetime, digest_hour: int) -> datetime:
    """Today's digest hour in the player's zone (``local`` is their clock now)."""
    return datetime.combine(local.date(), time(digest_hour), tzinfo=local.tzinfo)


def queue_digests(now: datetime) -> int:
    """Queue today's digest for each digest reader, on each channel they chose it for, whose
    local time has reached their digest hour and who has a game waiting; returns how many rows
    were created."""
    waiting = Exists(waiting_seats().filter(user=OuterRef("pk")))
    wanted: dict[int, list[str]] = {}
    email_readers = User.objects.filter(email_mode=EmailMode.DAILY_DIGEST, is_active=True).filter(
        waiting
    )
    for pk in email_readers.values_list("pk", flat=True):
        wanted.setdefault(pk, []).append(Channel.EMAIL)
    for channel in registry():
        if channel == Channel.EMAIL:
            continue
        readers = User.objects.filter(
            is_active=True, **{f"channel_modes__{channel}": ChannelMode.DAILY_DIGEST}
        ).filter(waiting)
        for pk in readers.values_list("pk", flat=True):
            wanted.setdefault(pk, []).append(channel)
    readers = User.objects.filter(pk__in=list(wanted)).only("pk", "time_zone", "digest_hour")
    # the oldest waiting turn of each reader: a digest is due only for a turn that already
    # waited at the digest hour (a game whose turn start is unknown counts as waiting)
    oldest = dict(
        waiting_seats()
        .filter(user_id__in=list(wanted))
        .values("user_id")
        .annotate(since=Min("game__turn_started_at"))
        .values_list("user_id", "since")
    )
    created = 0
    for user in readers:
        local = _local(now, user.time_zone)
        if local.hour < user.digest_hour:
            continue
        since = oldest.get(user.pk)
        if since is not None and since > _digest_moment(local, user.digest_hour):
            continue  # everything began after today's digest hour: tomorrow's digest
        for channel in wanted[user.pk]:
            key = digest_key(user.pk, local.date())
            _, new = Notification.objects.get_or_create(
                key=key if channel == Channel.EMAIL else f"{channel}:{key}",
                defaults={"kind": NotificationKind.DIGEST, "user": user, "channel": channel},
            )
            created += new
    return created
