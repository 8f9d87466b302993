"""The email channel's sender: a row becomes one email (``notifications.emails`` writes it).

A batch of rows shares one SMTP connection (``mail_session``): with a connection each,
connecting, greeting and quitting made an email cost about 17 ms instead of 5 ms against a
loopback server (bench/email_fanout.py measures the whole fan-out). It also shares the game
reads: a game over goes to every player of the table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

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
        close_quietly(backend)


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


class EmailSender(SimpleSender):
    name = "email"

    def send(self, notification: Notification) -> None:
        with self.batch() as send:
            send(notification)

    @contextlib.contextmanager
    def batch(self) -> Iterator[Send]:
        reads = GameReads()
        with mail_session() as connection:
            yield lambda notification: send_one(notification, connection, reads)

    def send_test(self, user: User) -> None:
        if not user.email:
            raise Skipped
        with translation.override(user.language), timezone.override(emails.zone_of(user)):
            context = {**emails.common_context(user), "channel_name": _("Email")}
            key = f"test:email:{user.pk}:{timezone.now().timestamp()}"
            headers = mail_headers.automatic(key, unsubscribe_url=context["unsubscribe_url"])
            emails.compose("test", user, context, headers).send()
