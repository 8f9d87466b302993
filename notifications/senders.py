"""The channels' senders by name: the registry the outbox, the digest and the settings ask
which channels this site can send, and whose sender sends a row.

It stands above the senders (``channels.email``, ``channels.chat``, ``channels.push``) and
nothing they import imports it: the registry once lived in ``channels/__init__``, which the
senders import for ``Skipped`` and the rest, and so closed an import circle through the email
writer and the digest.

The registry lists the channels that can send here: email and the chat webhook (``chat``,
through ``webhook``'s guarded, signed POST) always, push once VAPID keys are set
(``push.available``).
"""

from __future__ import annotations

from .channels import Sender, chat, email, push


def registry() -> dict[str, Sender]:
    """The channels that can send on this site, email first."""
    found: dict[str, Sender] = {"email": email.EmailSender()}
    if push.available():
        found["push"] = push.PushSender()
    found["webhook"] = chat.WebhookSender()
    return found


def sender(name: str) -> Sender | None:
    return registry().get(name)
