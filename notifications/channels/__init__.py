"""The channels' senders, by name: how an outbox row reaches the player.

``notifications.outbox`` claims a row and hands it to the sender of the row's channel; the
sender either returns (the message is out) or raises:

- ``Skipped``: nothing to send (the turn is over, the player chose otherwise, no device);
- ``NotYet``: not now, try again at ``until`` (a turn the player is still at: ``quiet``);
- ``PermanentFailure``: it can never be sent (the far end said so): the row fails at once;
- ``RenderError`` or anything else: the attempt failed, it is retried with a back-off for
  NOTIFICATION_RETRY_HOURS, like an email (``RenderError`` is logged as an error: a bug).

A sender sends one row (``send``); ``batch`` opens what a batch of rows shares (the email
sender's SMTP session and game reads) and yields the function that sends within it. That
function may also have ``ahead(rows)``: the outbox names the rows of a claim before it sends
them one by one, for reading what they share at once (the email sender's seats and logs).

The registry of the senders by name is ``notifications.senders``, above them: this package's
``__init__`` is the bottom every sender imports, so it imports none of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from accounts.models import User
    from notifications.models import Notification

Send = Callable[["Notification"], None]


class Skipped(Exception):
    """Nothing to send for this row (recorded as 'skipped')."""


class NotYet(Exception):
    """Not now: queue the row again, due at ``until``, without counting a failed attempt."""

    def __init__(self, until: datetime, reason: str = "") -> None:
        super().__init__(reason or f"not before {until.isoformat()}")
        self.until = until


class PermanentFailure(Exception):
    """The far end refused for good (a gone subscription, a malformed destination)."""


class RenderError(Exception):
    """The message could not be written (its game's stored state cannot be replayed, a
    template broke), as opposed to a send the far end or the network refused: the error is
    the row's own, so the other rows of the batch go on regardless."""


class Sender(Protocol):
    name: str

    def send(self, notification: Notification) -> None: ...

    def batch(self) -> contextlib.AbstractContextManager[Send]: ...

    def send_test(self, user: User) -> None:
        """The settings page's "send me a test": raises Skipped when the player has nothing
        to send it to on this channel, anything else when sending failed."""
        ...


class SimpleSender:
    """A sender whose rows share nothing: ``batch`` yields ``send`` itself."""

    name = ""

    def send(self, notification: Notification) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def batch(self) -> Iterator[Send]:
        yield self.send

    def send_test(self, user: User) -> None:
        raise NotImplementedError
