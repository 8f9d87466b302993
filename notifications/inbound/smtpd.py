"""An SMTP listener (aiosmtpd) for the reply addresses, for operators who point an MX at it.

Each message goes through the same ``handler.receive`` as ``receive_mail``, in a worker
thread (the ORM is synchronous); its outcome becomes the SMTP reply: 250 handled, 451 try
again, 550 no such address, 552 too large, 554 not an email. Recipients are checked at RCPT,
so mail for other addresses is refused before its data is sent.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from .. import links
from .handler import EX_DATAERR, EX_NOUSER, EX_OK, TemporaryFailure, receive

log = logging.getLogger(__name__)


def _handle(content: bytes, recipient: str, sender: str) -> str:
    close_old_connections()
    try:
        result = receive(content, recipient=recipient, envelope_sender=sender)
    except TemporaryFailure:
        return "451 4.3.0 Try again later"
    except Exception:  # a bug or a failed answer: the sender's server keeps the mail and retries
        log.exception("inbound mail: failed")
        return "451 4.3.0 Try again later"
    finally:
        close_old_connections()
    if result.status == EX_OK:
        return "250 2.0.0 OK"
    if result.status == EX_NOUSER:
        return "550 5.1.1 No such reply address"
    if result.status == EX_DATAERR and result.outcome == "too_large":
        return "552 5.3.4 Message too large"
    if result.status == EX_DATAERR:
        return "554 5.6.0 Not an email"
    return "451 4.3.0 Try again later"


class ReplyHandler:
    """aiosmtpd's handler: one reply address per message (a reply goes to one turn)."""

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        token = links.reply_token_of(address)
        if token is None:
            return "550 5.1.1 No such reply address"
        try:
            links.reply_read(token)
        except links.LinkError:
            return "550 5.1.1 No such reply address"
        if envelope.rcpt_tos:
            return "452 4.5.3 One reply address per message"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content = envelope.original_content or envelope.content
        sender = envelope.mail_from or ""
        return await asyncio.get_running_loop().run_in_executor(
            None, _handle, content, envelope.rcpt_tos[0], sender
        )


def controller(host: str | None = None, port: int | None = None) -> Any:
    """A started-on-demand aiosmtpd ``Controller`` on ``host``:``port`` (the settings'
    INBOUND_SMTP_HOST and INBOUND_SMTP_PORT), refusing messages over INBOUND_MAX_BYTES."""
    from aiosmtpd.controller import Controller

    return Controller(
        ReplyHandler(),
        hostname=host or settings.INBOUND_SMTP_HOST,
        port=port or settings.INBOUND_SMTP_PORT,
        data_size_limit=settings.INBOUND_MAX_BYTES,
        decode_data=False,
    )
