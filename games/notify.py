"""The outbox of emails: which notifications an event makes due, and their delivery.

Rows are created inside the transaction that made them due (so they exist exactly when the
move does) and delivered after commit by a task; a periodic sweep delivers whatever a dead
worker, a down broker or a refusing mail server left queued. A row is claimed with a
conditional update, so two runners never send the same email. A batch of rows shares one SMTP
connection (``mail_session``): with a connection each, connecting, greeting and quitting made
an email cost about 17 ms instead of 5 ms against a loopback server (bench/email_fanout.py
measures the whole fan-out).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.db import connections, router
from django.utils import timezone

from .models import (
    Game,
    Notification,
    NotificationKind,
    NotificationStatus,
    Seat,
)

if TYPE_CHECKING:
    from .selectors import GameReads

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
DELIVER_BATCH = 200
#: rows claimed at once: a worker that dies mid-batch leaves at most these 'sending' until
#: ``sending_timeout`` frees them, while the rest of the batch stays queued for the next sweep
CLAIM_CHUNK = 20


def _queue(key: str, **fields: object) -> None:
    """Create the row once; a second call with the same key changes nothing. One statement
    (INSERT ... ON CONFLICT DO NOTHING) instead of a savepoint around an INSERT: this runs in
    every action's transaction."""
    Notification.objects.bulk_create([Notification(key=key, **fields)], ignore_conflicts=True)


def turn_began(game: Game, seat: Seat) -> None:
    """The seat's turn began at ``game.turn_seq``: its player gets the turn email."""
    if seat.user_id is None or seat.retired:
        return
    _queue(
        f"turn:{game.pk}:{seat.index}:{game.turn_seq}",
        kind=NotificationKind.TURN,
        user_id=seat.user_id,
        game=game,
        seat=seat.index,
        seq=game.turn_seq,
    )


def reminder_due(game: Game, seat: Seat, label: str) -> None:
    if seat.user_id is None or seat.retired:
        return
    _queue(
        f"reminder:{game.pk}:{seat.index}:{game.turn_seq}:{label}",
        kind=NotificationKind.REMINDER,
        user_id=seat.user_id,
        game=game,
        seat=seat.index,
        seq=game.turn_seq,
    )


def timed_out(game: Game, seat: Seat, seq: int) -> None:
    """Everyone at the table hears that ``seat`` timed out at ``seq``."""
    for other in game.seats.exclude(user=None):
        _queue(
            f"timeout:{game.pk}:{seat.index}:{seq}:{other.index}",
            kind=NotificationKind.TIMEOUT,
            user_id=other.user_id,
            game=game,
            seat=seat.index,
            seq=seq,
        )


def game_finished(game: Game) -> None:
    for seat in game.seats.exclude(user=None):
        _queue(
            f"finished:{game.pk}:{seat.index}",
            kind=NotificationKind.FINISHED,
            user_id=seat.user_id,
            game=game,
            seat=seat.index,
            seq=game.seq,
        )


# -- delivery ------------------------------------------------------------------------------------
@contextlib.contextmanager
def mail_session() -> Iterator[BaseEmailBackend | None]:
    """One SMTP connection for a batch of emails, opened at the first email and closed at the
    end. Other backends give None, so each email keeps a connection of its own (the file
    backend writes one file per connection: one per email)."""
    backend = get_connection()
    if not isinstance(backend, SmtpBackend):
        yield None
        return
    try:
        yield backend
    finally:
        _close_quietly(backend)


def _close_quietly(backend: BaseEmailBackend) -> None:
    with contextlib.suppress(Exception):  # a dead connection cannot say goodbye
        backend.close()


def deliver(notification_id: int, connection: BaseEmailBackend | None = None) -> str:
    """Send one queued notification if it is due and nobody else has claimed it (through the
    batch's ``connection`` when given: see ``mail_session``)."""
    outcomes = _deliver_claimed(_claim([notification_id], timezone.now()), connection)
    return outcomes[0] if outcomes else "not_claimed"


def _claim(ids: list[int], now: datetime) -> list[int]:
    """Claim the rows of ``ids`` that are queued and due: one conditional UPDATE that returns
    the rows it changed, so of two runners each row goes to exactly one. (Django's update()
    returns only a count; RETURNING is in PostgreSQL and SQLite alike.)"""
    if not ids:
        return []
    db = connections[router.db_for_write(Notification)]
    ops = db.ops
    table = ops.quote_name(Notification._meta.db_table)
    at = ops.adapt_datetimefield_value(now)
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"UPDATE {table} SET status = %s, attempts = attempts + 1, next_attempt_at = %s "
        f"WHERE id IN ({marks}) AND status = %s AND next_attempt_at <= %s RETURNING id"
    )
    params = [NotificationStatus.SENDING, at, *ids, NotificationStatus.QUEUED, at]
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        claimed = {row[0] for row in cursor.fetchall()}
    return [pk for pk in ids if pk in claimed]  # in the order asked for


def _deliver_claimed(
    ids: list[int],
    connection: BaseEmailBackend | None = None,
    reads: GameReads | None = None,
) -> list[str]:
    """Send the claimed rows in order, each marked sent, skipped or failed right after its
    attempt; their games' rows are read once for all of them (``reads``, shared by the
    caller's whole batch when given)."""
    from .selectors import GameReads  # here: selectors imports services, which imports us

    rows = Notification.objects.select_related("user", "game").in_bulk(ids)
    reads = reads or GameReads()
    for row in rows.values():
        if row.game is not None:
            reads.known(row.game)  # just read: no need to read it again
    return [_send_claimed(rows[pk], connection, reads) for pk in ids if pk in rows]


def _send_claimed(
    notification: Notification,
    connection: BaseEmailBackend | None,
    reads: GameReads,
) -> str:
    from .emails import send_notification

    now = timezone.now()
    fields = {
        "game_id": notification.game_id,
        "seat": notification.seat,
        "notification_id": notification.pk,
        "kind": notification.kind,
        "attempt": notification.attempts,
    }
    try:
        sent = send_notification(notification, connection, reads)
    except Exception as exc:  # the mail server refused, the network failed, a template broke
        if connection is not None:  # the session may be broken: the next email opens anew
            _close_quietly(connection)
        failed = notification.attempts >= MAX_ATTEMPTS
        log.warning(
            "email failed: %s: %s",
            type(exc).__name__,
            exc,
            extra={**fields, "outcome": "failed" if failed else "retry"},
        )
        Notification.objects.filter(pk=notification.pk).update(
            status=NotificationStatus.FAILED if failed else NotificationStatus.QUEUED,
            next_attempt_at=now + backoff(notification.attempts),
            last_error=f"{type(exc).__name__}: {exc}"[:2000],
        )
        return "failed" if failed else "retry"
    Notification.objects.filter(pk=notification.pk).update(
        status=NotificationStatus.SENT if sent else NotificationStatus.SKIPPED,
        sent_at=timezone.now(),
    )
    outcome = "sent" if sent else "skipped"
    log.info("email %s", outcome, extra={**fields, "outcome": outcome})
    return outcome


def sending_timeout() -> timedelta:
    """A row left 'sending' this long was claimed by a worker that died: queue it again."""
    return timedelta(seconds=settings.NOTIFICATION_SENDING_TIMEOUT)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 … minutes after each failed attempt, at most an hour."""
    return timedelta(minutes=min(60, 2 ** max(0, attempts - 1)))


def deliver_many(ids: Iterable[int]) -> dict[str, int]:
    """Send the due rows among ``ids`` over one SMTP session, claiming ``CLAIM_CHUNK`` rows at
    a time; the emails of one game share its reads across the whole batch."""
    from .selectors import GameReads  # here: selectors imports services, which imports us

    ids = list(ids)
    reads = GameReads()
    counts: dict[str, int] = {}
    with mail_session() as connection:
        for start in range(0, len(ids), CLAIM_CHUNK):
            chunk = ids[start : start + CLAIM_CHUNK]
            claimed = _claim(chunk, timezone.now())
            if len(claimed) < len(chunk):
                counts["not_claimed"] = counts.get("not_claimed", 0) + len(chunk) - len(claimed)
            for outcome in _deliver_claimed(claimed, connection, reads):
                counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def deliver_due(limit: int = DELIVER_BATCH) -> dict[str, int]:
    """The sweep: requeue rows a dead worker left 'sending', then send what is due."""
    now = timezone.now()
    Notification.objects.filter(
        status=NotificationStatus.SENDING, next_attempt_at__lt=now - sending_timeout()
    ).update(status=NotificationStatus.QUEUED)
    ids = list(
        Notification.objects.filter(status=NotificationStatus.QUEUED, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return deliver_many(ids)
