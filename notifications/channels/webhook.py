"""The chat webhook channel: a player's news POSTed to a Discord, Slack or their own endpoint.

``send_webhook(destination, event)`` sends one event. ``event`` is a dict that names what
happened and is already worded in the player's language::

    {"type": "turn" | "reminder" | "timeout" | "finished" | "message" | "test",
     "text": "Your turn in Keltis #12", "game": 12, "url": "https://.../games/12/",
     "deadline": "2026-03-05T09:00:00+00:00" or None}

The outbox's rows reach it through ``chat`` (worded as every channel words them,
``messages.describe``). The request body is, by the destination's format:

- ``discord``: ``{"content": text + url, "allowed_mentions": {"parse": []}}`` (no @everyone
  from a display name; a table talk message's markdown characters escaped, so what a player
  typed shows as typed: no masked link, no spoiler);
- ``slack``: ``{"text": text + <url>}`` with ``& < >`` escaped as Slack asks;
- ``json``: the event itself (``type``, ``text``, ``game``, ``url``, ``site``, ``sent_at``).

Every request, whatever its format, is signed: ``X-Keltis-Timestamp`` is the Unix time in
seconds and ``X-Keltis-Signature`` is ``sha256=`` and the hex HMAC-SHA256, keyed by the
destination's secret, of ``<timestamp>.<body>`` (the timestamp, a dot, the raw body bytes).
A receiver recomputes it, compares in constant time and refuses a timestamp more than five
minutes away from its clock (a replay).

Failures are two exceptions a sender's retry loop can tell apart: ``PermanentFailure`` (the
address is refused by the network guard, a redirect, a 4xx other than 408 and 429: trying
again will not help, the player must change the address) and ``TemporaryFailure`` (no
answer, a timeout, a 5xx, 408 or 429, a host that does not resolve now: try again later).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from keltis_site import public_site
from notifications.channels import netguard
from notifications.feed_models import WebhookDestination, WebhookFormat, new_key

SIGNATURE_HEADER = "X-Keltis-Signature"
TIMESTAMP_HEADER = "X-Keltis-Timestamp"
#: Discord and Slack cut longer messages; ours are a line or two
MAX_TEXT = 1800


class WebhookFailure(Exception):
    """A webhook was not delivered; ``code`` is short and safe to show or log."""

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code}: {detail}" if detail else code)


class PermanentFailure(WebhookFailure):
    """Trying again will not help (refused address, redirect, 4xx but 408/429)."""


class TemporaryFailure(WebhookFailure):
    """Worth another try later (no answer, timeout, 5xx, 408, 429, DNS failure)."""


# -- the request ---------------------------------------------------------------------------------
def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 with ``secret`` over ``<timestamp>.<body>``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: what Discord reads as markdown in a message's text (a masked link, emphasis, a spoiler)
_DISCORD_MARKUP = re.compile(r"([\\*_~`|\[\]])")


def _discord_escape(text: str) -> str:
    return _DISCORD_MARKUP.sub(r"\\\1", text)


def payload(fmt: str, event: dict[str, Any]) -> dict[str, Any]:
    """The JSON body for a destination of format ``fmt``."""
    text = str(event.get("text", ""))[:MAX_TEXT]
    url = str(event.get("url", ""))
    if fmt == WebhookFormat.DISCORD:
        if event.get("type") == "message":  # a player's own words
            text = _discord_escape(text)
        content = f"{text}\n{url}" if url else text
        return {"content": content, "allowed_mentions": {"parse": []}}
    if fmt == WebhookFormat.SLACK:
        line = _slack_escape(text)
        return {"text": f"{line}\n<{url}>" if url else line}
    return {
        **event,
        "text": text,
        "site": public_site.absolute("/"),
        "sent_at": timezone.now().isoformat(),
    }


def send_webhook(destination: WebhookDestination, event: dict[str, Any]) -> None:
    """POST ``event`` to the destination in its format, signed; return once it is accepted
    (a 2xx answer). Raises ``PermanentFailure`` or ``TemporaryFailure``."""
    body = json.dumps(payload(destination.format, event), ensure_ascii=False).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": f"{public_site.name()} webhook",
        TIMESTAMP_HEADER: timestamp,
        SIGNATURE_HEADER: signature(destination.secret, timestamp, body),
    }
    try:
        answer = netguard.post(destination.url, body, headers)
    except netguard.DestinationRefused as exc:
        if exc.code == "unresolvable":
            raise TemporaryFailure("unresolvable", str(exc)) from exc
        raise PermanentFailure("refused", str(exc)) from exc
    except netguard.RequestFailed as exc:
        raise TemporaryFailure("no_answer", str(exc)) from exc
    status = answer.status
    if 200 <= status < 300:
        return
    detail = f"HTTP {status}: {answer.body[:200].decode('utf-8', 'replace')}"
    if 300 <= status < 400:
        raise PermanentFailure("redirect", f"HTTP {status} to {answer.location[:200]}")
    if status in (408, 429) or status >= 500:
        raise TemporaryFailure("http", detail)
    raise PermanentFailure("http", detail)


# -- the player's destination --------------------------------------------------------------------
def destination_of(user: User) -> WebhookDestination | None:
    return WebhookDestination.objects.filter(user=user).first()


def destination_save(user: User, *, url: str, fmt: str) -> WebhookDestination:
    """Set the player's webhook (one per player). The address must pass the network guard
    now (``netguard.DestinationRefused`` otherwise); it is checked again on every send."""
    netguard.resolve(url)
    with transaction.atomic():
        destination, created = WebhookDestination.objects.select_for_update().get_or_create(
            user=user, defaults={"url": url, "format": fmt}
        )
        if not created:
            destination.url = url
            destination.format = fmt
            destination.updated_at = timezone.now()
            destination.save(update_fields=["url", "format", "updated_at"])
    return destination


def destination_new_secret(user: User) -> None:
    WebhookDestination.objects.filter(user=user).update(secret=new_key(), updated_at=timezone.now())


def destination_remove(user: User) -> None:
    WebhookDestination.objects.filter(user=user).delete()
