"""The channels' one outbox (email is its first sender): which notifications an event makes
due, and their delivery.

Rows are created inside the transaction that made them due (so they exist exactly when the
move does) and delivered after commit by a task; a periodic sweep delivers whatever a dead
worker, a down broker or a refusing mail server left queued. A row is claimed with a
conditional update, so two runners never send the same email. A batch of rows shares one SMTP
connection (``mail_session``): with a connection each, connecting, greeting and quitting made
an email cost about 17 ms instead of 5 ms against a loopback server (bench/email_fanout.py
measures the whole fan-out).

Failures: an attempt that fails is retried with a back-off growing to an hour, for
NOTIFICATION_RETRY_HOURS (48) from the first failed attempt; then the row is 'failed', listed
for staff in the admin (which requeues it) and counted by ``failed_count`` for /healthz. An
email that cannot be written (``emails.RenderError``: its game's stored state cannot be
replayed, say) fails alone: the batch goes on with the other rows over the same SMTP session.
The rows a dead worker left are retried one claim each, so a row that kills its worker cannot
hold back the others.

Delivery is at least once, not exactly once. Each row is marked sent by its own statement
right after the mail server accepted its email, never at the end of a batch. What remains is
the gap between the server's acceptance (its reply to the end of DATA) and the commit of that
statement, a few milliseconds per email: a worker killed there, or a database failing that
statement, leaves the row 'sending', and NOTIFICATION_SENDING_TIMEOUT later the sweep sends it
again. SMTP has the same gap of its own (RFC 1047): a connection lost after the message but
before the server's reply looks like a failure, and the email is retried. Every attempt at a
row carries the same Message-ID (made from the row's unique key by ``mail_headers.message_id``), so
a receiver or mail client that de-duplicates by Message-ID shows a resent email once. Outside
that gap nothing is sent twice: one runner claims a row; a worker that stalls while holding
claimed rows sends none of them once its claim is half the sending timeout old (so it never
races the sweep that takes them back), and EMAIL_TIMEOUT bounds how long a mail server can
stall one send.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.db import DatabaseError, connections, router
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.models import Game, Seat
from games.selectors import GameReads

from . import emails  # called through the module: tests replace emails.send_notification
from .models import Notification, NotificationKind, NotificationStatus

log = logging.getLogger(__name__)

DELIVER_BATCH = 200
#: rows claimed at once: a worker that dies mid-batch leaves at most these 'sending' until
#: ``sending_timeout`` frees them, while the rest of the batch stays queued for the next sweep
CLAIM_CHUNK = 20
#: the longest wait between two attempts, in minutes: Postfix's maximal_backoff_time is about
#: as long (4000 s), and a mail server back from an outage gets the whole queue within it
MAX_BACKOFF_MINUTES = 60


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
    now = timezone.now()
    outcomes = _deliver_claimed(_claim([notification_id], now), now, connection)
    return outcomes[0] if outcomes else "not_claimed"


def _claim(ids: list[int], now: datetime) -> list[int]:
    """Claim the rows of ``ids`` that are queued and due: one conditional UPDATE that returns
    the rows it changed, so of two runners each row goes to exactly one. (Django's update()
    returns only a count; RETURNING is in PostgreSQL and SQLite alike.) The claim time goes
    into ``next_attempt_at``: the sweep takes a row back once it is ``sending_timeout`` old."""
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
    claimed_at: datetime,
    connection: BaseEmailBackend | None = None,
    reads: GameReads | None = None,
) -> list[str]:
    """Send the rows claimed at ``claimed_at`` in order, each marked sent, skipped or failed
    right after its attempt; their games' rows are read once for all of them (``reads``,
    shared by the caller's whole batch when given).

    Once the claim is half the sending timeout old the rest are left 'sending', unsent: the
    sweep may soon take them back and hand them to another worker, which must be the only one
    to send them."""
    rows = Notification.objects.select_related("user", "game").in_bulk(ids)
    reads = reads or GameReads()
    for row in rows.values():
        if row.game is not None:
            reads.known(row.game)  # just read: no need to read it again
    outcomes = []
    for pk in ids:
        if pk not in rows:
            continue
        if timezone.now() - claimed_at >= sending_timeout() / 2:
            outcomes.append("claim_expired")
            continue
        outcomes.append(_send_claimed(rows[pk], connection, reads))
    return outcomes


def _send_claimed(
    notification: Notification,
    connection: BaseEmailBackend | None,
    reads: GameReads,
) -> str:
    try:
        sent = emails.send_notification(notification, connection, reads)
    except (emails.RenderError, DatabaseError) as exc:
        # the email could not be written: no mail server was involved, the session is good
        return _attempt_failed(notification, exc)
    except Exception as exc:  # the mail server refused or the network failed
        if connection is not None:  # the session may be broken: the next email opens anew
            _close_quietly(connection)
        return _attempt_failed(notification, exc)
    # the email is out: record it at once, in a statement of its own (see the module's doc)
    Notification.objects.filter(pk=notification.pk).update(
        status=NotificationStatus.SENT if sent else NotificationStatus.SKIPPED,
        sent_at=timezone.now(),
    )
    outcome = "sent" if sent else "skipped"
    log.info("email %s", outcome, extra={**_log_fields(notification), "outcome": outcome})
    return outcome


def _log_fields(notification: Notification) -> dict[str, object]:
    return {
        "game_id": notification.game_id,
        "seat": notification.seat,
        "notification_id": notification.pk,
        "kind": notification.kind,
        "attempt": notification.attempts,
    }


def _attempt_failed(notification: Notification, exc: Exception) -> str:
    """Queue the row again after its back-off, or mark it failed once it has been failing for
    the retry period. An email that could not be written is logged as an error with its
    traceback (a bug or a broken game, for staff to mend); a refused send as a warning."""
    now = timezone.now()
    since = notification.failing_since or now
    failed = now - since >= retry_period()
    outcome = "failed" if failed else "retry"
    error = _error_text(exc)
    extra = {**_log_fields(notification), "outcome": outcome}
    if isinstance(exc, emails.RenderError):
        log.error("email failed: %s", error, exc_info=exc, extra=extra)
    else:
        log.warning("email failed: %s", error, extra=extra)
    Notification.objects.filter(pk=notification.pk).update(
        status=NotificationStatus.FAILED if failed else NotificationStatus.QUEUED,
        next_attempt_at=now + backoff(notification.attempts),
        failing_since=since,
        failed_at=now if failed else None,
        last_error=error,
    )
    return outcome


def _error_text(exc: BaseException) -> str:
    # PostgreSQL text refuses NUL characters: a broken game's data must not break the update
    return f"{type(exc).__name__}: {exc}".replace("\x00", "")[:2000]


def sending_timeout() -> timedelta:
    """A row left 'sending' this long was claimed by a worker that died: queue it again."""
    return timedelta(seconds=settings.NOTIFICATION_SENDING_TIMEOUT)


def retry_period() -> timedelta:
    """How long a failing email is retried, from its first failed attempt, before it fails."""
    return timedelta(hours=settings.NOTIFICATION_RETRY_HOURS)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 … minutes after each failed attempt, at most ``MAX_BACKOFF_MINUTES``."""
    return timedelta(minutes=min(MAX_BACKOFF_MINUTES, 2 ** max(0, attempts - 1)))


def deliver_many(ids: Iterable[int]) -> dict[str, int]:
    """Send the due rows among ``ids`` over one SMTP session, claiming ``CLAIM_CHUNK`` rows at
    a time; the emails of one game share its reads across the whole batch."""
    return _deliver_chunks(_chunked(list(ids), CLAIM_CHUNK))


def _chunked(ids: list[int], size: int) -> list[list[int]]:
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def _deliver_chunks(chunks: list[list[int]]) -> dict[str, int]:
    """Claim and send each chunk of row ids in turn over one SMTP session."""
    reads = GameReads()
    counts: dict[str, int] = {}
    with mail_session() as connection:
        for chunk in chunks:
            now = timezone.now()
            claimed = _claim(chunk, now)
            if len(claimed) < len(chunk):
                counts["not_claimed"] = counts.get("not_claimed", 0) + len(chunk) - len(claimed)
            for outcome in _deliver_claimed(claimed, now, connection, reads):
                counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def deliver_due(limit: int = DELIVER_BATCH) -> dict[str, int]:
    """The sweep: take back the rows a dead worker left 'sending', then send what is due.

    First attempts are claimed ``CLAIM_CHUNK`` at a time; rows tried before one claim each: a
    row whose sending kills the worker (it was in such a chunk) then takes only itself down
    next time, and the others of its chunk go out with the next sweep."""
    now = timezone.now()
    _take_back_stale(now)
    due = list(
        Notification.objects.filter(status=NotificationStatus.QUEUED, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", "attempts")[:limit]
    )
    first = [pk for pk, attempts in due if attempts == 0]
    again = [pk for pk, attempts in due if attempts > 0]
    return _deliver_chunks(_chunked(first, CLAIM_CHUNK) + _chunked(again, 1))


def _take_back_stale(now: datetime) -> None:
    """Rows left 'sending' longer than ``sending_timeout``: their worker died, perhaps after the
    mail server accepted the email. That counts as a failed attempt: queued again, or failed
    once the row has been failing for the retry period."""
    stale = Notification.objects.filter(
        status=NotificationStatus.SENDING, next_attempt_at__lt=now - sending_timeout()
    )
    error = "the worker sending it stopped before recording the outcome (it may have been sent)"
    stale.filter(failing_since__lte=now - retry_period()).update(
        status=NotificationStatus.FAILED, failed_at=now, last_error=error
    )
    stale.update(
        status=NotificationStatus.QUEUED,
        failing_since=Coalesce("failing_since", Value(now)),
        last_error=error,
    )


# -- for staff -------------------------------------------------------------------------------------
def requeue(ids: Iterable[int]) -> int:
    """Queue the failed rows among ``ids`` again, due now and with a fresh retry period (staff,
    from the admin, once the cause is mended); returns how many. Other rows are left alone: a
    sent email is never sent again."""
    return Notification.objects.filter(pk__in=list(ids), status=NotificationStatus.FAILED).update(
        status=NotificationStatus.QUEUED,
        attempts=0,
        next_attempt_at=timezone.now(),
        failing_since=None,
        failed_at=None,
    )


def failed_count(days: int = 7) -> int:
    """How many emails were given up for good in the last ``days`` days (each after
    NOTIFICATION_RETRY_HOURS of failed attempts) and not requeued since: for /healthz to report
    the mail as degraded. One indexed count (status, then the few failed rows)."""
    since = timezone.now() - timedelta(days=days)
    return Notification.objects.filter(
        status=NotificationStatus.FAILED, failed_at__gte=since
    ).count()
