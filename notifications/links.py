"""Signed links in emails: act on one turn without logging in, and unsubscribe in one click.

One signing helper for every emailed token (``django.core.signing``, a salt per purpose), so a
token made for one purpose never passes for another, and nothing is stored per link. An action
token names (game, seat, turn, seq, action) and is good only while that turn lasts; the state
of the game, not the token, decides, so a link dies when the game moves on.
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from games.models import Game, GameStatus, Seat
from keltis_site.public_site import absolute

SALT = "keltis.links"
ACTION, UNSUBSCRIBE, REPLY = "act", "unsubscribe", "reply"
#: a bound on any action token: the deadline or the end of the turn ends it much sooner
ACTION_MAX_AGE = timedelta(days=60)


class LinkError(Exception):
    """Why a link does not act; ``code`` picks the words the page shows."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.status = http_status(code)
        super().__init__(code)


def http_status(code: str) -> int:
    """400 for a link that never was valid (or a move the rules refuse), 409 for a frozen
    game (it may be unfrozen), 410 for one whose time has passed (the game moved on, the turn
    or the game ended, the deadline passed)."""
    if code == "frozen":
        return 409
    return 400 if code in ("invalid", "illegal") else 410


# -- the one signing helper -----------------------------------------------------------------------
def sign(purpose: str, payload: list[Any]) -> str:
    """A compact, URL-safe token (base64 JSON, timestamp, signature) for ``purpose``, as
    ``signing.dumps`` makes it but for zlib: a payload of a few numbers never came out
    shorter compressed, and ``loads`` reads tokens either way (those already emailed too)."""
    return _signer(f"{SALT}.{purpose}", settings.SECRET_KEY).sign_object(payload)


@functools.lru_cache(maxsize=8)
def _signer(salt: str, key: str) -> signing.TimestampSigner:
    """One signer per purpose and key: a turn email signs twenty links and more, and making
    the signer (and compressing) cost half of each signature."""
    return _KeyedSigner(key=key, salt=salt)


class _KeyedSigner(signing.TimestampSigner):
    """``TimestampSigner`` with its HMAC key worked out once: Django derives the key from the
    salt and the secret for every signature (a hash, then a new HMAC), a third of signing a
    link. The signature is Django's own, byte for byte (``signing.loads`` reads it)."""

    def __init__(self, *, key: str, salt: str) -> None:
        super().__init__(key=key, salt=salt)
        self._mac = salted_hmac(self.salt + "signer", "", self.key, algorithm=self.algorithm)

    def signature(self, value: str | bytes, key: str | bytes | None = None) -> str:
        if key is not None and key != self.key:
            return super().signature(value, key)
        mac = self._mac.copy()
        mac.update(value.encode() if isinstance(value, str) else value)
        return signing.b64_encode(mac.digest()).decode()


def unsign(purpose: str, token: str, max_age: timedelta | None = None) -> list[Any]:
    """The payload of a token made by ``sign`` for ``purpose``, or ``LinkError``."""
    try:
        payload = signing.loads(token, salt=f"{SALT}.{purpose}", max_age=max_age)
    except signing.SignatureExpired:
        raise LinkError("too_old") from None
    except (signing.BadSignature, ValueError, UnicodeDecodeError):
        raise LinkError("invalid") from None
    if not isinstance(payload, list):
        raise LinkError("invalid")
    return payload


# -- action links ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionLink:
    """One action of one turn: ``turn_seq`` names the turn, ``seq`` the step within it."""

    game_id: int
    seat: int
    turn_seq: int
    seq: int
    action: str

    def token(self) -> str:
        return sign(ACTION, [self.game_id, self.seat, self.turn_seq, self.seq, self.action])

    def path(self) -> str:
        return reverse("email_action", args=[self.token()])

    def url(self) -> str:
        return absolute(self.path())

    def next_step(self, *, seq: int, action: str) -> ActionLink:
        """A link for the same turn, one step on (the draw after the lay, the clover…)."""
        return ActionLink(self.game_id, self.seat, self.turn_seq, seq, action)


def action_read(token: str) -> ActionLink:
    """The link a token names, checked for forgery and tampering (not yet for its game)."""
    payload = unsign(ACTION, token, max_age=ACTION_MAX_AGE)
    if len(payload) != 5 or not all(isinstance(v, int) for v in payload[:4]):
        raise LinkError("invalid")
    if not isinstance(payload[4], str):
        raise LinkError("invalid")
    return ActionLink(*payload)


def turn_check(link: ActionLink, game: Game, *, now: datetime | None = None) -> None:
    """Raise ``LinkError`` unless the link's turn is still on: the game runs (and is not
    frozen), the seat is to move in the same turn, a person still plays it and the deadline
    has not passed."""
    now = now or timezone.now()
    if game.pk != link.game_id:
        raise LinkError("invalid")
    if game.frozen:
        raise LinkError("frozen")
    if game.status != GameStatus.RUNNING:
        raise LinkError("not_running")
    if game.to_move != link.seat or game.turn_seq != link.turn_seq:
        raise LinkError("turn_over")
    seat = Seat.objects.filter(game=game, index=link.seat).first()
    if seat is None or seat.user_id is None or seat.retired:
        raise LinkError("turn_over")
    if game.deadline is not None and now >= game.deadline:
        raise LinkError("deadline")


def action_check(link: ActionLink, game: Game, *, now: datetime | None = None) -> None:
    """``turn_check``, and the step itself: the game has not moved on since the link was made
    (a used link fails here, as does one for a step the player already took on the web)."""
    turn_check(link, game, now=now)
    if game.seq != link.seq:
        raise LinkError("used")


# -- unsubscribe links ----------------------------------------------------------------------------
def unsubscribe_token(user_id: int) -> str:
    return sign(UNSUBSCRIBE, [user_id])


def unsubscribe_url(user_id: int) -> str:
    """Never expires: RFC 8058 mail clients may use it long after the email arrived."""
    return absolute(reverse("email_unsubscribe", args=[unsubscribe_token(user_id)]))


def unsubscribe_read(token: str) -> int:
    payload = unsign(UNSUBSCRIBE, token)
    if len(payload) != 1 or not isinstance(payload[0], int):
        raise LinkError("invalid")
    return payload[0]


# -- reply addresses ------------------------------------------------------------------------------
#: the local part's prefix: ``play+<token>@INBOUND_EMAIL_DOMAIN``
REPLY_PREFIX = "play+"
#: characters of the signature: 16 base32 characters are 80 bits
_REPLY_SIG_CHARS = 16


@dataclass(frozen=True)
class ReplyKey:
    """The turn a reply address names: good for this game, seat and turn only."""

    game_id: int
    seat: int
    turn_seq: int


def _reply_signature(game_id: int, seat: int, turn_seq: int) -> str:
    digest = salted_hmac(f"{SALT}.{REPLY}", f"{game_id}:{seat}:{turn_seq}").digest()
    return base64.b32encode(digest).decode()[:_REPLY_SIG_CHARS].lower()


def reply_token(key: ReplyKey) -> str:
    """``<game>-<seat>-<turn>-<signature>``: digits and lower-case base32 only, so a mail server
    that lowercases local parts changes nothing, and short enough for a local part (RFC 5321:
    64 characters). The ids are public (they are in the game's address), the signature is not."""
    return f"{key.game_id}-{key.seat}-{key.turn_seq}-" + _reply_signature(
        key.game_id, key.seat, key.turn_seq
    )


def reply_read(token: str) -> ReplyKey:
    """The turn a reply token names, or ``LinkError("invalid")`` for a forged or altered one."""
    parts = token.strip().lower().split("-")
    if len(parts) != 4 or not all(p.isdigit() and len(p) <= 12 for p in parts[:3]):
        raise LinkError("invalid")
    game_id, seat, turn_seq = (int(p) for p in parts[:3])
    if not constant_time_compare(parts[3], _reply_signature(game_id, seat, turn_seq)):
        raise LinkError("invalid")
    return ReplyKey(game_id, seat, turn_seq)


def reply_address(key: ReplyKey) -> str | None:
    """The address a turn email's replies go to; None while INBOUND_EMAIL_DOMAIN is unset."""
    domain = settings.INBOUND_EMAIL_DOMAIN
    if not domain:
        return None
    return f"{REPLY_PREFIX}{reply_token(key)}@{domain}"


def reply_token_of(address: str) -> str | None:
    """The token in a reply address (``play+<token>@domain``, any case), else None."""
    local, at, _domain = address.strip().strip("<>").rpartition("@")
    if not at or not local.lower().startswith(REPLY_PREFIX):
        return None
    return local[len(REPLY_PREFIX) :] or None
