"""The channels' one outbox: which notifications an event makes due, on which channels, and
their delivery through each channel's sender (``notifications.senders``).

A row is one message on one channel: (seat, turn, kind, channel). Rows are created inside the
transaction that made them due (so they exist exactly when the move does), one for each
channel the player has on for that kind (email always: its own setting is read when it is
sent, as before), and delivered after commit by a task; a periodic sweep delivers whatever a
dead worker, a down broker or a refusing far end left queued. A row is claimed with a
conditional update, so two runners never send the same message. The rows of a batch are sent
by channel, each channel's batch sharing what its sender shares (the email sender's SMTP
session: ``channels.email.mail_session``). A turn row for a player who is at the game waits
(``quiet``): its runner finds them there after the commit and makes it due later, and
holds it again at that time while they still are.

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
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connections, router
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest, Mod
from django.utils import timezone

from accounts.models import User
from games import due
from games.models import Game, Seat
from keltis_site.prepared import Prepared, PreparedInsertIgnoring, PreparedUpdate

from . import channels, quiet, senders
from .channels.email import mail_session  # noqa: F401  (the outbox's name for it, kept)
from .models import Channel, ChannelMode, Notification, NotificationKind, NotificationStatus

log = logging.getLogger(__name__)

DELIVER_BATCH = 200
#: rows claimed at once: a worker that dies mid-batch leaves at most these 'sending' until
#: ``sending_timeout`` frees them, while the rest of the batch stays queued for the next sweep
CLAIM_CHUNK = 20
#: the longest wait between two attempts, in minutes: Postfix's maximal_backoff_time is about
#: as long (4000 s), and a mail server back from an outage gets the whole queue within it
MAX_BACKOFF_MINUTES = 60


def channel_key(key: str, channel: str) -> str:
    """The row's key on ``channel``: email keeps the key it always had (its Message-ID is
    made from it), the other channels prefix theirs with their name."""
    return key if channel == Channel.EMAIL else f"{channel}:{key}"


def channels_for(user: User, kind: str) -> list[str]:
    """The channels a ``kind`` message goes out on for the player: email always (its setting,
    ``User.email_mode``, is read when it is sent, as it always was), each other channel of the
    registry when the player's choice for it (``User.channel_modes``) carries that kind. As
    for email, a digest reader still hears of reminders, timeouts and the end of their games;
    a turn only every turn. The choices are on the user row, which play reads with the seats:
    no query in the move's transaction."""
    found = [Channel.EMAIL.value]
    modes = user.channel_modes or {}
    for name in senders.registry():
        mode = modes.get(name, ChannelMode.NONE) if name != Channel.EMAIL else ChannelMode.NONE
        if mode == ChannelMode.NONE:
            continue
        if kind == NotificationKind.TURN and mode != ChannelMode.EVERY_TURN:
            continue
        found.append(name)
    return found


def _queue(key: str, *, user: User, kind: str, **fields: object) -> None:
    """Create the row of each of the player's channels once; a second call with the same key
    changes nothing. One statement (INSERT ... ON CONFLICT DO NOTHING) instead of a savepoint
    around an INSERT: this runs in every action's transaction; inside ``due.batched()`` (the
    deadline sweep's timeout) the rows of all its news share that one statement. Whether the
    player is at the game (``quiet``) is not asked here but by the runner after the commit,
    which holds the row then: the move's transaction reads nothing more for its messages."""
    due.write(
        _insert,
        [
            Notification(key=channel_key(key, name), channel=name, user=user, kind=kind, **fields)
            for name in channels_for(user, kind)
        ],
    )


#: the rows' insert, skipping a key already queued, its SQL written once (keltis_site.prepared)
_INSERT_NEW = PreparedInsertIgnoring(Notification)


def _insert(rows: list[Notification]) -> None:
    """``bulk_create(rows, ignore_conflicts=True)``, without the ORM's work on every action."""
    _INSERT_NEW.run(rows, using=router.db_for_write(Notification))


def turn_began(game: Game, seat: Seat) -> None:
    """The seat's turn began at ``game.turn_seq``: its player hears of it."""
    if seat.user_id is None or seat.retired:
        return
    _queue(
        f"turn:{game.pk}:{seat.index}:{game.turn_seq}",
        kind=NotificationKind.TURN,
        user=seat.user,
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
        user=seat.user,
        game=game,
        seat=seat.index,
        seq=game.turn_seq,
    )


def timed_out(game: Game, seat: Seat, seq: int, seats: Sequence[Seat]) -> None:
    """Everyone at the table (``seats``, read with their users under the game's lock) hears
    that ``seat`` timed out at ``seq``."""
    for other in seats:
        if other.user_id is None:
            continue
        _queue(
            f"timeout:{game.pk}:{seat.index}:{seq}:{other.index}",
            kind=NotificationKind.TIMEOUT,
            user=other.user,
            game=game,
            seat=seat.index,
            seq=seq,
        )


def game_finished(game: Game, seats: Sequence[Seat]) -> None:
    """Every player at the table (``seats``, read with their users under the game's lock)
    hears that the game is over."""
    for seat in seats:
        if seat.user_id is None:
            continue
        _queue(
            f"finished:{game.pk}:{seat.index}",
            kind=NotificationKind.FINISHED,
            user=seat.user,
            game=game,
            seat=seat.index,
            seq=game.seq,
        )


# -- delivery ------------------------------------------------------------------------------------
def deliver(notification_id: int) -> str:
    """Send one queued notification if it is due and nobody else has claimed it."""
    now = timezone.now()
    outcomes = _deliver_claimed(_claim([notification_id], now), now)
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
    batches: _Batches | None = None,
    game_id: int | None = None,
) -> list[str]:
    """Send the rows claimed at ``claimed_at`` in order, each through its channel's sender and
    marked sent, skipped, held or failed right after its attempt. ``batches`` holds each
    channel's batch (the email sender's SMTP session and game reads), shared by the caller's
    whole run when given.

    Once the claim is half the sending timeout old the rest are left 'sending', unsent: the
    sweep may soon take them back and hand them to another worker, which must be the only one
    to send them.

    ``game_id``: every row is of that game, read by a query compiled once (``_SENDING_OF_GAME``)
    instead of ``in_bulk``, whose building and compiling cost a game's task more CPU than its
    database round trip. Rows of the game that another runner holds are read and left out:
    only ``ids`` are ours, and nothing else changes a row while its claim holds it."""
    if game_id is None:
        rows = Notification.objects.select_related("user", "game").in_bulk(ids)
    else:
        claimed = set(ids)
        db = router.db_for_read(Notification)
        rows = {n.pk: n for n in _SENDING_OF_GAME.run(game_id, using=db) if n.pk in claimed}
    outcomes = []
    with contextlib.ExitStack() as stack:
        batches = batches or _Batches(stack)
        batches.ahead([rows[pk] for pk in ids if pk in rows])
        for pk in ids:
            if pk not in rows:
                continue
            if timezone.now() - claimed_at >= sending_timeout() / 2:
                outcomes.append("claim_expired")
                continue
            outcomes.append(_send_claimed(rows[pk], batches))
    return outcomes


class _Batches:
    """Each channel's batch, opened at its first row and closed with ``stack``."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self.stack = stack
        self.open: dict[str, channels.Send | None] = {}

    def ahead(self, rows: list[Notification]) -> None:
        """Tell each channel's batch the rows it is about to send, for what they share."""
        by_channel: dict[str, list[Notification]] = {}
        for row in rows:
            by_channel.setdefault(row.channel, []).append(row)
        for channel, its_rows in by_channel.items():
            try:
                ahead = getattr(self.send_for(channel), "ahead", None)
                if ahead is not None:
                    ahead(its_rows)
            except Exception:  # only a saving: each row reads what it needs, and fails alone
                log.warning("reading ahead failed", exc_info=True, extra={"channel": channel})

    def send_for(self, channel: str) -> channels.Send | None:
        if channel not in self.open:
            sender = senders.sender(channel)
            self.open[channel] = (
                self.stack.enter_context(sender.batch()) if sender is not None else None
            )
        return self.open[channel]


def _send_claimed(notification: Notification, batches: _Batches) -> str:
    try:
        held = _held_until(notification)
        if held is not None:
            raise channels.NotYet(held, "the player is at the game")
        send = batches.send_for(notification.channel)
        if send is None:
            raise LookupError(f"no sender for the channel {notification.channel!r} here")
        send(notification)
    except channels.Skipped:
        return _mark_done(notification, NotificationStatus.SKIPPED, "skipped")
    except channels.NotYet as wait:
        return _wait(notification, wait.until)
    except channels.PermanentFailure as exc:
        return _attempt_failed(notification, exc, give_up=True)
    except Exception as exc:  # rendering, the database, the far end or the network failed
        return _attempt_failed(notification, exc)
    # the message is out: record it at once, in a statement of its own (see the module's doc)
    return _mark_done(notification, NotificationStatus.SENT, "sent")


def _held_until(notification: Notification) -> datetime | None:
    """Quiet while active: a turn the player is still at waits (a turn that moved on is left
    to the sender, which skips it), and so does table talk while they are at its game."""
    if notification.kind not in quiet.HELD_KINDS:
        return None
    if notification.kind == NotificationKind.TURN and not quiet.turn_still_on(
        notification.game, notification.seat, notification.seq
    ):
        return None
    return quiet.hold_until(
        kind=notification.kind, game_id=notification.game_id, seat=notification.seat,
        user=notification.user, now=timezone.now(),
    )  # fmt: skip


#: the statement after every send, its SQL written once (keltis_site.prepared): the ORM built
#: and compiled the same UPDATE anew for each email
_MARK_DONE = PreparedUpdate(Notification, ["status", "sent_at"], where=["id"])


def _mark_done(notification: Notification, status: str, outcome: str) -> str:
    db = router.db_for_write(Notification)
    _MARK_DONE.run([status, timezone.now()], [notification.pk], using=db)
    extra = {**_log_fields(notification), "outcome": outcome}
    log.info("%s %s", _noun(notification), outcome, extra=extra)
    return outcome


def _wait(notification: Notification, until: datetime) -> str:
    """Queued again, due at ``until``; the attempt does not count (nothing was tried)."""
    Notification.objects.filter(pk=notification.pk).update(
        status=NotificationStatus.QUEUED,
        next_attempt_at=until,
        attempts=Greatest(F("attempts") - 1, Value(0)),
    )
    log.info("%s held", _noun(notification), extra={**_log_fields(notification), "outcome": "held"})
    return "held"


def _noun(notification: Notification) -> str:
    return "email" if notification.channel == Channel.EMAIL else notification.channel


def _log_fields(notification: Notification) -> dict[str, object]:
    return {
        "game_id": notification.game_id,
        "seat": notification.seat,
        "notification_id": notification.pk,
        "kind": notification.kind,
        "channel": notification.channel,
        "attempt": notification.attempts,
    }


def _attempt_failed(notification: Notification, exc: Exception, give_up: bool = False) -> str:
    """Queue the row again after its back-off, or mark it failed once it has been failing for
    the retry period (at once when the far end refused for good: ``give_up``). A message that
    could not be written is logged as an error with its traceback (a bug or a broken game,
    for staff to mend); a refused send as a warning."""
    now = timezone.now()
    since = notification.failing_since or now
    failed = give_up or now - since >= retry_period()
    outcome = "failed" if failed else "retry"
    error = _error_text(exc)
    extra = {**_log_fields(notification), "outcome": outcome}
    noun = _noun(notification)
    if isinstance(exc, channels.RenderError):
        log.error("%s failed: %s", noun, error, exc_info=exc, extra=extra)
    else:
        log.warning("%s failed: %s", noun, error, extra=extra)
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


#: a game's queued rows (the task after its move) and its claimed ones with what sending
#: them reads, each query compiled once (``keltis_site.prepared``): every move runs them
_QUEUED_OF_GAME = Prepared(
    lambda game_id: Notification.objects.filter(
        game_id=game_id, status=NotificationStatus.QUEUED
    ).values_list("pk")
)
_SENDING_OF_GAME = Prepared(
    lambda game_id: Notification.objects.filter(
        game_id=game_id, status=NotificationStatus.SENDING
    ).select_related("user", "game")
)


def deliver_game(game_id: int) -> dict[str, int]:
    """``deliver_many`` of the game's queued rows, in the order they were queued."""
    db = router.db_for_read(Notification)
    ids = [pk for (pk,) in _QUEUED_OF_GAME.rows(game_id, using=db)]
    return _deliver_chunks(_chunked(ids, CLAIM_CHUNK), game_id)


#: rows a shard's task sends before it leaves the rest to a task queued anew: other shards'
#: tasks and the sweep get the worker meanwhile, and no task runs for many minutes
SHARD_TASK_ROWS = 500


def deliver_shard(shard: int, shards: int) -> dict[str, int]:
    """The task a wake queued (``notifications.relay``): the due first attempts of the games
    whose id is ``shard`` modulo ``shards``, ``CLAIM_CHUNK`` at a time in the order they fell
    due (a game's in the order queued), until none is left or ``SHARD_TASK_ROWS`` were tried.
    Rows tried before are the sweep's, one claim each (``deliver_due``). Returns the counts
    and whether rows may be left (``"more"``: 1)."""
    counts: dict[str, int] = {}
    tried = 0
    while tried < SHARD_TASK_ROWS:
        due = list(
            Notification.objects.filter(
                status=NotificationStatus.QUEUED, attempts=0, game__isnull=False,
                next_attempt_at__lte=timezone.now(),
            )
            .alias(shard=Mod("game_id", shards))
            .filter(shard=shard)
            .order_by("next_attempt_at", "pk")  # the index's order: a game's rows in turn
            .values_list("pk", flat=True)[:CLAIM_CHUNK]
        )  # fmt: skip
        if not due:
            return counts
        for outcome, count in _deliver_chunks([due]).items():
            counts[outcome] = counts.get(outcome, 0) + count
        tried += len(due)
    counts["more"] = 1
    return counts


def _chunked(ids: list[int], size: int) -> list[list[int]]:
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def _deliver_chunks(chunks: list[list[int]], game_id: int | None = None) -> dict[str, int]:
    """Claim and send each chunk of row ids in turn, each channel's rows in one batch of its
    sender (one SMTP session for the emails); ``game_id``: every row is of that game."""
    counts: dict[str, int] = {}
    with contextlib.ExitStack() as stack:
        batches = _Batches(stack)
        for chunk in chunks:
            now = timezone.now()
            claimed = _claim(chunk, now)
            if len(claimed) < len(chunk):
                counts["not_claimed"] = counts.get("not_claimed", 0) + len(chunk) - len(claimed)
            for outcome in _deliver_claimed(claimed, now, batches, game_id):
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
