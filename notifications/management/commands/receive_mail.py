"""``manage.py receive_mail``: one RFC 5322 message on stdin, as Postfix's or Exim's pipe
transport delivers it (e.g. Postfix ``flags=R user=keltis argv=.../manage.py receive_mail
--recipient ${recipient} --sender ${sender}``). The exit status follows sysexits.h: 0 handled
(also a refused move that was answered, or mail ignored on purpose), 65 not an email or too
large, 67 no such reply address (the mail server bounces), 75 a temporary failure (it retries).
A message the email library cannot parse (MIME nested thousands deep) is never a 75: the same
bytes would fail on every retry; it is recorded and answered or refused as any other (handler).
Its stdout is the outcome's one word (``applied``, ``unknown_address``...): the pipe reads it,
and Postfix puts it in the bounce of a refused message. The log lines go to stderr (the site's
LOGGING writes them to stdout, as a web server's or a worker's).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from notifications.inbound.handler import EX_TEMPFAIL, TemporaryFailure, receive

log = logging.getLogger(__name__)
CHUNK = 65536


def read_capped(stream: Any, cap: int) -> bytes:
    """At most ``cap`` + 1 bytes of ``stream``, the rest read and dropped: the pipe is drained
    (its writer sees no broken pipe), and a huge message never sits in memory."""
    kept = stream.read(cap + 1)
    while len(kept) > cap and stream.read(CHUNK):
        pass
    return kept


@contextlib.contextmanager
def logs_on_stderr() -> Iterator[None]:
    """Every log handler writing to stdout writes to stderr meanwhile: stdout is the mail
    server's pipe, which should read the outcome alone."""
    moved: dict[logging.StreamHandler[Any], Any] = {}
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", ()):  # a PlaceHolder has none
            if (
                isinstance(handler, logging.StreamHandler)
                and handler not in moved
                and handler.stream in (sys.stdout, sys.__stdout__)
            ):
                moved[handler] = handler.setStream(sys.stderr)
    try:
        yield
    finally:
        for handler, stream in moved.items():
            handler.setStream(stream)


class Command(BaseCommand):
    help = "Handle one reply to a turn email, read on stdin (exit status per sysexits.h)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--recipient", default=None, help="the envelope recipient")
        parser.add_argument("--sender", default=None, help='the envelope sender ("" bounce)')

    def handle(self, *args: Any, **options: Any) -> None:
        raw = read_capped(sys.stdin.buffer, settings.INBOUND_MAX_BYTES)
        with logs_on_stderr():
            try:
                result = receive(
                    raw, recipient=options["recipient"], envelope_sender=options["sender"]
                )
            except TemporaryFailure:
                sys.exit(EX_TEMPFAIL)
            except Exception:  # never lose a reply to a bug: the mail server keeps it, retries
                log.exception("inbound mail: failed")
                sys.exit(EX_TEMPFAIL)
        self.stdout.write(result.outcome)
        sys.exit(result.status)
