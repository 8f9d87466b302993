"""The email channel's sender: a row becomes one email (``notifications.emails`` writes it).

A batch of rows shares one SMTP connection (``mail_session``): with a connection each,
connecting, greeting and quitting made an email cost about 17 ms instead of 5 ms against a
loopback server (bench/email_fanout.py measures the whole fan-out). It also shares the game
reads: a game over goes to every player of the table.

The connection outlives its batch: a worker sends one game's emails per task, so a connection
per batch was still one per game (2,220 connections for 10,000 emails). Each process (each
thread) keeps its last connection open for the next batch, checks it with a NOOP when it has
been idle a while, opens a new one when it has been idle longer than a server keeps a quiet
client (RFC 5321 4.5.3.2.7: at least five minutes), after ``MAX_EMAILS_PER_CONNECTION``
emails, after a fork, when the mail settings changed, and after any failed send.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.db import DatabaseError
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import User
from games.selectors import GameReads
from keltis_site import mail_headers

from .. import emails  # called through the module: tests replace emails.send_notification
from ..models import Notification
from . import Send, SimpleSender, Skipped

#: a connection idle longer than this is asked (NOOP) whether it still stands before reuse:
#: back-to-back tasks reuse it as it is, a quiet worker pays one round trip (Postfix under
#: stress drops a client idle for 10 s: an email sent into a dropped session would fail)
CHECK_AFTER_IDLE_SECONDS = 2.0
#: ... and one idle longer than this is closed and opened anew (servers drop quiet clients)
MAX_IDLE_SECONDS = 240.0
#: a connection is closed after this many emails (servers limit the messages of a session)
MAX_EMAILS_PER_CONNECTION = 500


class _Kept(threading.local):
    """This thread's SMTP backend, kept between batches, with what decides its reuse."""

    backend: SmtpBackend | None = None
    key: tuple[Any, ...] = ()
    pid: int = 0
    idle_since: float = 0.0
    sent: int = 0


_kept = _Kept()


def _settings_key(backend: SmtpBackend) -> tuple[Any, ...]:
    return (
        type(backend), backend.host, backend.port, backend.username, backend.password,
        backend.use_tls, backend.use_ssl, backend.timeout, backend.ssl_keyfile,
        backend.ssl_certfile,
    )  # fmt: skip


def _take(fresh: SmtpBackend) -> SmtpBackend:
    """The kept backend when it may serve another batch (its connection, if open, is alive),
    else ``fresh`` (the kept one closed). Not shared across a fork: the child drops the
    parent's socket unsaid (a QUIT would end the parent's session)."""
    kept, key, now = _kept.backend, _settings_key(fresh), time.monotonic()
    _kept.backend = None
    if kept is None or _kept.pid != os.getpid():
        kept = None
    elif _kept.key != key or _kept.sent >= MAX_EMAILS_PER_CONNECTION:
        close_quietly(kept)
        kept = None
    elif kept.connection is not None:
        idle = now - _kept.idle_since
        if idle > MAX_IDLE_SECONDS or (idle > CHECK_AFTER_IDLE_SECONDS and not _alive(kept)):
            close_quietly(kept)  # reopened by the batch's first email
            _kept.sent = 0
    if kept is None:
        _kept.key, _kept.pid, _kept.sent = key, os.getpid(), 0
        return fresh
    return kept


def _alive(backend: SmtpBackend) -> bool:
    try:
        return backend.connection is not None and backend.connection.noop()[0] == 250
    except Exception:  # a connection the server or the network dropped
        return False


def _keep(backend: SmtpBackend) -> None:
    if backend.connection is None:  # closed (after a failure): the next email opens anew
        _kept.sent = 0
    _kept.backend, _kept.idle_since = backend, time.monotonic()


@contextlib.contextmanager
def mail_session() -> Iterator[BaseEmailBackend | None]:
    """One SMTP connection for a batch of emails, opened at the first email, kept open for
    the thread's next batch (see the module's doc). Other backends give None, so each email
    keeps a connection of its own (the file backend writes one file per connection: one per
    email)."""
    fresh = get_connection()
    if not isinstance(fresh, SmtpBackend):
        yield None
        return
    backend = _take(fresh)
    try:
        yield backend
    except BaseException:
        close_quietly(backend)  # whatever broke the batch may have broken the session
        raise
    finally:
        _keep(backend)


def close_kept() -> None:
    """Close this thread's kept connection (tests; a worker that stops)."""
    kept, _kept.backend = _kept.backend, None
    if kept is not None and _kept.pid == os.getpid():
        close_quietly(kept)


def close_quietly(backend: BaseEmailBackend) -> None:
    with contextlib.suppress(Exception):  # a dead connection cannot say goodbye
        backend.close()


def send_one(
    notification: Notification, connection: BaseEmailBackend | None, reads: GameReads
) -> None:
    """Send the row's email over ``connection``: Skipped when there is nothing to send;
    RenderError (the email's own) and DatabaseError leave the session as it was, any other
    failure closes it (it may be broken: the next email opens anew)."""
    if notification.game is not None:
        reads.known(notification.game)  # the outbox read it with the row: not again
    try:
        sent = emails.send_notification(notification, connection, reads)
    except (emails.RenderError, DatabaseError):
        raise
    except Exception:
        if connection is not None:
            close_quietly(connection)
        raise
    if not sent:
        raise Skipped
    if connection is not None:
        _kept.sent += 1


class _Batch:
    """``send_one`` within one SMTP session and one set of game reads; ``ahead`` reads what
    the rows about to come share (``emails.read_ahead``)."""

    def __init__(self, connection: BaseEmailBackend | None, reads: GameReads) -> None:
        self.connection, self.reads = connection, reads

    def __call__(self, notification: Notification) -> None:
        send_one(notification, self.connection, self.reads)

    def ahead(self, notifications: list[Notification]) -> None:
        emails.read_ahead(notifications, self.reads)


class EmailSender(SimpleSender):
    name = "email"

    def send(self, notification: Notification) -> None:
        with self.batch() as send:
            send(notification)

    @contextlib.contextmanager
    def batch(self) -> Iterator[Send]:
        with mail_session() as connection:
            yield _Batch(connection, emails.MailReads())

    def send_test(self, user: User) -> None:
        if not user.email:
            raise Skipped
        with translation.override(user.language), timezone.override(emails.zone_of(user)):
            context = {**emails.common_context(user), "channel_name": _("Email")}
            key = f"test:email:{user.pk}:{timezone.now().timestamp()}"
            headers = mail_headers.automatic(key, unsubscribe_url=context["unsubscribe_url"])
            emails.compose("test", user, context, headers).send()
