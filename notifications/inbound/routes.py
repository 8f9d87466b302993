"""Reply addresses other than a turn's: ``<prefix><token>@INBOUND_EMAIL_DOMAIN``, each prefix
handled by a route another app registers (``REPLY_ROUTES``) from its ``AppConfig.ready``.

The handler (``handler``) still does what every reply needs, in the same order as for a turn:
the size, the row (each message once, by Message-ID), loops and auto-replies, the rate limit,
the address's signature and DMARC; a route then checks the sender and acts, and writes its
answer from the stored row. So notifications never imports the apps that answer (friends: an
invitation's ``invite+``, a game over's ``rematch+``), and they reuse all of it.

The tokens are those of ``links.reply_token``, for any purpose: ``<id>-<id>-<signature>``,
digits and lower-case base32 only (a server that lowercases local parts changes nothing),
signed with a salt per purpose so a token made for one route never passes for another.
"""

from __future__ import annotations

import base64
import unicodedata
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

from ..models import InboundMessage

#: 16 base32 characters are 80 bits, as for the turn's reply addresses
_SIG_CHARS = 16


@dataclass(frozen=True)
class RoutedReply:
    """What the handler read of a message to a routed address."""

    #: the route's own reading of the address (``ReplyRoute.read``)
    target: object
    sender: str
    message_id: str
    #: the lines the sender wrote (quotes and signature stripped); None: unreadable
    lines: list[str] | None
    #: an auto-reply, a bounce, a list's mail (only ``accepts_automatic`` routes see these)
    automatic: bool
    #: the parsed message (None when its MIME structure could not be parsed)
    message: EmailMessage | None


@dataclass(frozen=True)
class RouteOutcome:
    #: an ``InboundOutcome`` value: those of ``answers.ANSWERED`` get ``ReplyRoute.answer``
    outcome: str
    #: JSON, as ``answers.detail`` writes it: what the answer is written from
    detail: str = ""
    #: the game it was about, for staff in the admin
    game_id: int | None = None


class ReplyRoute(Protocol):
    #: bounces and auto-replies reach it (a DSN to a VERP address) instead of being ignored
    accepts_automatic: bool

    def read(self, token: str) -> object | None:
        """What the token names, or None for a forged or altered one (the address is
        unknown: the mail server says so to the sender)."""

    def handle(self, reply: RoutedReply) -> RouteOutcome:
        """Check the sender and act; runs once per message."""

    def answer(self, row: InboundMessage, in_reply_to: str) -> bool:
        """Send the answer written from ``row`` (its outcome and detail); True once sent."""


#: the local part's prefix ("invite+") -> its route
REPLY_ROUTES: dict[str, ReplyRoute] = {}
#: the game-over email's reply address (``notifications.emails``), answered by friends
REMATCH_PREFIX, REMATCH_PURPOSE = "rematch+", "rematch"

# -- yes and no -----------------------------------------------------------------------------------
#: the words shown in each language's emails: (yes, no)
YES_NO = {
    "en": ("yes", "no"),
    "hu": ("igen", "nem"),
    "pl": ("tak", "nie"),
    "cs": ("ano", "ne"),
    "sk": ("áno", "nie"),
    "ru": ("да", "нет"),
    "de": ("ja", "nein"),
}


def _fold(text: str) -> str:
    """Case and accents do not matter ("Áno" is "ano"), as for moves."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_YES = {_fold(yes) for yes, _no in YES_NO.values()}
_NO = {_fold(no) for _yes, no in YES_NO.values()}


def yes_no_words(language: str) -> tuple[str, str]:
    return YES_NO.get((language or "en")[:2], YES_NO["en"])


def yes_or_no(lines: list[str]) -> bool | None:
    """True for "yes", False for "no" in any of the site's languages, as the first written line
    alone ("Igen!", "nein." too); None for anything else, which is never guessed at."""
    if not lines:
        return None
    word = _fold(lines[0].strip().rstrip(".!?,;:)… \t").strip())
    if word in _YES:
        return True
    if word in _NO:
        return False
    return None


def route_of(address: str) -> tuple[str, str] | None:
    """(prefix, token) of a routed address (any case), else None."""
    local, at, _domain = address.strip().strip("<>").rpartition("@")
    lowered = local.lower()
    if not at:
        return None
    for prefix in REPLY_ROUTES:
        if lowered.startswith(prefix) and len(local) > len(prefix):
            return prefix, local[len(prefix) :]
    return None


# -- signed tokens --------------------------------------------------------------------------------
def _signature(purpose: str, ids: tuple[int, ...]) -> str:
    text = ":".join(str(i) for i in ids)
    digest = salted_hmac(f"keltis.links.route.{purpose}", text).digest()
    return base64.b32encode(digest).decode()[:_SIG_CHARS].lower()


def token(purpose: str, *ids: int) -> str:
    """``<id>-...-<signature>`` for ``purpose`` (short enough for a local part: RFC 5321's 64)."""
    return "-".join(str(i) for i in ids) + "-" + _signature(purpose, ids)


def token_read(purpose: str, text: str, count: int) -> tuple[int, ...] | None:
    """The ``count`` ids a token made by ``token`` for ``purpose`` names, or None."""
    parts = text.strip().lower().split("-")
    if len(parts) != count + 1 or not all(p.isdigit() and len(p) <= 12 for p in parts[:-1]):
        return None
    ids = tuple(int(p) for p in parts[:-1])
    if not constant_time_compare(parts[-1], _signature(purpose, ids)):
        return None
    return ids


def address(prefix: str, purpose: str, *ids: int) -> str | None:
    """``<prefix><token>@INBOUND_EMAIL_DOMAIN``; None while INBOUND_EMAIL_DOMAIN is unset."""
    domain = settings.INBOUND_EMAIL_DOMAIN
    if not domain:
        return None
    return f"{prefix}{token(purpose, *ids)}@{domain}"
