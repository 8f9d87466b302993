"""The player's channels: their choice per channel (for turns and for table talk), their push
devices, "send me a test".

Services and selectors of the settings page (``notifications.views.channels`` only routes):
bad input raises ValidationError in the player's language and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import EmailMode, User

from . import channels, senders
from .channels import push
from .models import Channel, ChannelMode, MessageMode, PushSubscription
from .reader import message_mode

#: "send me a test" per player and channel, at most this often
TEST_RATE = "5/h"


@dataclass(frozen=True)
class ChannelRow:
    """One channel as the settings page lists it."""

    name: str
    label: str
    mode: str
    mode_label: str
    #: the player has somewhere for it to go (an address, a device, a webhook)
    ready: bool


def channel_rows(user: User) -> list[ChannelRow]:
    """Every channel this site can send, with the player's choice, email first."""
    modes = user.channel_modes or {}
    rows = []
    for name in senders.registry():
        if name == Channel.EMAIL:
            mode = user.email_mode
            ready = bool(user.email)
        else:
            mode = modes.get(name, ChannelMode.NONE)
            ready = name != Channel.PUSH or PushSubscription.objects.filter(user=user).exists()
        rows.append(
            ChannelRow(name, str(Channel(name).label), mode, str(ChannelMode(mode).label), ready)
        )
    return rows


@dataclass(frozen=True)
class TalkRow:
    """One channel's choice for table talk as the settings page lists it."""

    name: str
    label: str
    mode: str


def talk_rows(user: User) -> list[TalkRow]:
    """Every channel this site can send, with the player's choice for table talk (or the
    channel's default: ``reader.message_mode``), email first."""
    return [
        TalkRow(name, str(Channel(name).label), message_mode(user, name))
        for name in senders.registry()
    ]


def set_message_mode(user: User, channel: str, mode: str) -> None:
    """The player's choice for table talk on ``channel``: every message, with the next turn
    email, or never (``User.message_modes``)."""
    _channel(channel)
    if mode not in MessageMode.values:
        raise ValidationError(_("Choose one of the offered options."))
    user.message_modes = {**(user.message_modes or {}), channel: mode}
    user.save(update_fields=["message_modes"])


def _channel(name: str) -> str:
    if name not in senders.registry():
        raise ValidationError(_("This site cannot send that kind of notification."))
    return name


def set_channel_mode(user: User, channel: str, mode: str) -> None:
    """The player's choice for ``channel``: every turn, a daily digest, or off (for email,
    the email setting itself)."""
    _channel(channel)
    if mode not in ChannelMode.values:
        raise ValidationError(_("Choose one of the offered options."))
    if channel == Channel.EMAIL:
        user.email_mode = EmailMode(mode)
        user.save(update_fields=["email_mode"])
        return
    _save_mode(user, channel, mode)


def _save_mode(user: User, channel: str, mode: str) -> None:
    user.channel_modes = {**(user.channel_modes or {}), channel: mode}
    user.save(update_fields=["channel_modes"])


def set_always_notify(user: User, always: bool) -> None:
    user.always_notify = always
    user.save(update_fields=["always_notify"])


def push_subscribe(user: User, data: Any) -> PushSubscription:
    """Store the browser's subscription (the JSON of ``PushSubscription.toJSON()``) for the
    player; push is turned on for every turn if it was off. A device another account
    subscribed before belongs to the player who subscribed it last."""
    if not push.available():
        raise ValidationError(_("This site cannot send that kind of notification."))
    try:
        endpoint = str(data["endpoint"])
        keys = data["keys"]
        p256dh, auth = str(keys["p256dh"]), str(keys["auth"])
    except (KeyError, TypeError):
        raise ValidationError(_("The browser sent no usable subscription.")) from None
    if not push.endpoint_allowed(endpoint) or not p256dh or not auth:
        raise ValidationError(_("The browser sent no usable subscription."))
    if len(p256dh) > 200 or len(auth) > 100:
        raise ValidationError(_("The browser sent no usable subscription."))
    with transaction.atomic():
        subscription, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
        )
        if (user.channel_modes or {}).get(Channel.PUSH, ChannelMode.NONE) == ChannelMode.NONE:
            _save_mode(user, Channel.PUSH, ChannelMode.EVERY_TURN)
    return subscription


def push_devices(user: User) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user=user))


def push_remove(user: User, subscription_id: int) -> None:
    subscription = PushSubscription.objects.filter(user=user, pk=subscription_id).first()
    if subscription is None:
        raise ValidationError(_("That device is not on your list."))
    subscription.user = user  # the caller's object: it sees the push choice change
    push.forget(subscription)


def send_test(user: User, channel: str) -> None:
    """ "Send me a test" on ``channel``: ValidationError with the reason when nothing could be
    sent (nowhere to send it, too many tests, the far end refused)."""
    from games import ratelimit

    sender = senders.sender(_channel(channel))
    assert sender is not None
    if not ratelimit.hit("channel-test", f"{user.pk}:{channel}", TEST_RATE):
        raise ValidationError(_("Too many tests: try again in an hour."))
    try:
        sender.send_test(user)
    except channels.Skipped:
        raise ValidationError(_("There is nowhere to send it yet on this channel.")) from None
    except Exception as exc:
        raise ValidationError(
            _("The test could not be sent: %(error)s") % {"error": type(exc).__name__}
        ) from exc
