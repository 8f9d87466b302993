"""``manage.py smtpd``: the SMTP listener for reply addresses (notifications.inbound.smtpd),
in the foreground until stopped."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from notifications.inbound.smtpd import controller


class Command(BaseCommand):
    help = "Listen for replies to turn emails by SMTP (INBOUND_SMTP_HOST:INBOUND_SMTP_PORT)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=None)
        parser.add_argument("--port", type=int, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        listener = controller(options["host"], options["port"])
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        listener.start()
        self.stdout.write(f"listening on {listener.hostname}:{listener.port}")
        self.stdout.flush()
        stop.wait()
        listener.stop()
