"""The Web Push channel: a row becomes a notification on each browser or phone the player
allowed (``PushSubscription``), through its push service (RFC 8030), encrypted to the
subscription's keys (RFC 8291, aes128gcm) and signed with the site's VAPID key (RFC 8292).

The VAPID key: WEBPUSH_VAPID_PRIVATE_KEY (PEM, or the raw key in base64url) in production,
the same on every host (a subscription is bound to the public key it was made with); on the
embedded default it is made once and kept in WEBPUSH_VAPID_KEY_FILE (under var/, readable
by its user only), like the local secret key. With neither, push is off: the channel is not
listed and the settings page says so.

A push service that answers 404 or 410 says the subscription is gone: it is deleted. The
service's address comes from the browser, so it must be https (WEBPUSH_ALLOW_HTTP is for the
tests' loopback service), and a redirect is refused.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import os
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from accounts.models import User
from games.selectors import GameReads

from ..models import Notification, PushSubscription
from . import PermanentFailure, SimpleSender, Skipped, netguard
from .messages import Message, describe, test_message

log = logging.getLogger(__name__)

#: how long the push service keeps a message for a device that is offline (seconds): a turn
#: is still news a day later; older, the game page or the next message says it better
TTL_SECONDS = 24 * 3600
GONE = (404, 410)


# -- the site's key ----------------------------------------------------------------------------
def available() -> bool:
    """Whether this site can send pushes (a VAPID key is set, or kept on the embedded default)."""
    return bool(settings.WEBPUSH_VAPID_PRIVATE_KEY or settings.WEBPUSH_VAPID_KEY_FILE)


def _persisted_pem(path: Path) -> bytes:
    """The key kept in ``path``, written there first (atomically, mode 0600) if there is none:
    every process of the local site shares it (keltis_site.local_secret does the same)."""
    if not path.exists():
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(pem)
        try:
            os.link(draft, path)  # another process got there first: theirs is kept
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_bytes()


@functools.cache
def _vapid(configured: str, key_file: str) -> Vapid:
    if configured:
        if "BEGIN" in configured:
            return Vapid.from_pem(configured.encode())
        return Vapid.from_string(configured)
    return Vapid.from_pem(_persisted_pem(Path(key_file)))


def vapid() -> Vapid:
    return _vapid(settings.WEBPUSH_VAPID_PRIVATE_KEY, str(settings.WEBPUSH_VAPID_KEY_FILE))


def public_key() -> str:
    """The application server key the browser subscribes with: the uncompressed P-256 point,
    base64url without padding."""
    raw = vapid().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def subject() -> str:
    """VAPID's contact (RFC 8292 "sub"): WEBPUSH_SUBJECT, else the site's sender address."""
    if settings.WEBPUSH_SUBJECT:
        return str(settings.WEBPUSH_SUBJECT)
    return f"mailto:{parseaddr(settings.DEFAULT_FROM_EMAIL)[1] or 'noreply@localhost'}"


# -- subscriptions -----------------------------------------------------------------------------
def checked_endpoint(endpoint: str) -> netguard.Target:
    """The push service's address, checked: https (http only where WEBPUSH_ALLOW_HTTP allows
    it) on a public address (``netguard``, as for chat webhooks); DestinationRefused else.
    The address comes from the browser, so a forged subscription must not turn the site's
    pushes against its own network."""
    parts = urlsplit(endpoint)
    schemes = ("https", "http") if settings.WEBPUSH_ALLOW_HTTP else ("https",)
    if parts.scheme not in schemes or not parts.hostname or len(endpoint) > 2000:
        raise netguard.DestinationRefused("scheme")
    return netguard.resolve(endpoint)


def endpoint_refusal(endpoint: str) -> str | None:
    """Why a push service's address is refused (``checked_endpoint``), or None."""
    try:
        checked_endpoint(endpoint)
    except netguard.DestinationRefused as exc:
        return exc.code or "refused"
    return None


def endpoint_allowed(endpoint: str) -> bool:
    return endpoint_refusal(endpoint) is None


def forget(subscription: PushSubscription) -> None:
    """Delete a subscription; with the player's last device gone, their push choice is off
    (no row is queued for a channel with nowhere to go)."""
    user = subscription.user
    subscription.delete()
    if not PushSubscription.objects.filter(user=user).exists() and user.channel_modes.get("push"):
        user.channel_modes = {**user.channel_modes, "push": "none"}
        user.save(update_fields=["channel_modes"])


# -- sending -----------------------------------------------------------------------------------
class _TemporaryFailure(Exception):
    pass


def push_to(subscription: PushSubscription, message: Message) -> None:
    """One message to one device; deletes a subscription the push service says is gone
    (PermanentFailure), raises _TemporaryFailure when it may work later."""
    try:
        target = checked_endpoint(subscription.endpoint)
    except netguard.DestinationRefused as exc:
        if exc.code == "unresolvable":  # the push service's name does not resolve now: later
            raise _TemporaryFailure("push service unresolvable") from exc
        forget(subscription)
        raise PermanentFailure(f"push endpoint not allowed ({exc.code or 'refused'})") from exc
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    try:
        webpush(
            info,
            data=json.dumps(message.as_dict(), ensure_ascii=False),
            vapid_private_key=vapid(),
            vapid_claims={"sub": subject()},
            timeout=settings.WEBPUSH_TIMEOUT,
            ttl=TTL_SECONDS,
            # to the address just checked: a second DNS answer cannot swap in another
            requests_session=netguard.pinned_session(target),
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in GONE:
            forget(subscription)
            raise PermanentFailure(f"subscription gone ({status})") from exc
        if status is not None and 400 <= status < 500 and status != 429:
            raise PermanentFailure(f"push refused ({status})") from exc
        raise _TemporaryFailure(str(exc)) from exc
    except (requests.RequestException, OSError) as exc:
        raise _TemporaryFailure(f"{type(exc).__name__}: {exc}") from exc
    except (ValueError, TypeError) as exc:  # keys the browser gave that do not decode
        raise PermanentFailure(f"bad subscription: {exc}") from exc


def push_to_user(user: User, message: Message) -> int:
    """The message to every device of the player; how many took it. Skipped when there is
    none left; a temporary failure with none sent is raised (the row is retried); devices that
    refused for good are left out (gone ones deleted)."""
    subscriptions = list(PushSubscription.objects.filter(user=user))
    if not subscriptions:
        raise Skipped
    sent, temporary = 0, None
    for subscription in subscriptions:
        try:
            push_to(subscription, message)
        except PermanentFailure as exc:
            log.info("push not delivered: %s", exc, extra={"user_id": user.pk})
        except _TemporaryFailure as exc:
            temporary = exc
        else:
            sent += 1
    if not sent and temporary is not None:
        raise temporary
    if not sent:
        raise Skipped
    return sent


class PushSender(SimpleSender):
    name = "push"

    def send(self, notification: Notification) -> None:
        message = describe(notification, GameReads())
        if message is None:
            raise Skipped
        push_to_user(notification.user, message)

    def send_test(self, user: User) -> None:
        push_to_user(user, test_message(user))
