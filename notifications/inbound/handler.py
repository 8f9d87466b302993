"""One received reply, from its bytes to its moves and its answer.

The checks run cheapest and most final first: size, loops, rate, address, DMARC, sender, turn.
Every reading of the bytes happens first, in ``_read``, bounded (``MAX_MIME_DEPTH``,
``MAX_MIME_PARTS``) and guarded: a message the email library cannot parse (MIME nested thousands
deep, a header that overflows its parser) is a permanent failure, recorded with the error
``unparseable``, answered like a refused move when its sender is the seat's verified player,
and never a "try again" that the mail server would repeat for days.
A reply that is refused for who sent it (a forged From, a DMARC failure, a loop, too many
replies) is not answered: an answer would go to an address that did not write, or feed a loop.
Every other handled reply is answered once (``answers``), from the stored row, so a
redelivered message whose answer failed to go out gets it then, and nothing acts twice.

A reply to an address another app answers (an invitation's ``invite+``, a game over's
``rematch+``: ``routes.REPLY_ROUTES``) goes through the same checks, and the route then checks
its sender, acts and answers.

The moves go down ``games.services.action_submit`` with the sequence number each expects: the
lines are first read and tried on a copy of the engine's state, so a reply either plays every
move it could read or nothing; a turn that moved on meanwhile stops it there (``GameMovedOn``).

Moves and a message. A reply to a turn email (or to a message email, whose Reply-To is the
reader's seat) may hold moves and a message for the table, or only one of them. Its written
lines (``body.written_lines``: without the quote, the signature after "-- " and a client's
boilerplate) are read from the top:

1. Nothing written, or "help" (in any spelling of the player's words) before any move: the
   help answer, the position with the moves and how to write a message.
2. The moves are the lines at the top that read as legal moves of the turn the address names
   (``grammar.read_line``; a step the site takes for the player anyway may be written too).
3. The first line that does not read as a move ends them. If it looks like an attempt at one
   (``grammar.looks_like_move``: it spells an action, or is short and begins with a move word,
   a colour or a card, or holds a number), it is handled as before and nothing is posted: the
   first line of a reply, or any line that spells an action the turn cannot take, refuses the
   whole reply ("Nothing was changed"); under moves already read, a line that spells nothing
   leaves itself and the rest unread ("The lines from … on were not read as moves"). So a
   typo is never posted to the table as chat. The same holds for lines left once the turn is
   over (a second turn's moves are not read, nor posted).
4. Otherwise that line and every line after it are the message: posted to the table after the
   moves are played (``talk.services.message_post``, ``via="email"``), its lines as written,
   without a last line that is only the player's name (a sign-off). A message needs no turn:
   to a turn that is over, or when it is not the player's turn, the message is posted all the
   same, while the moves at its top (the lines that look like moves) are not played (STALE,
   as before). A message refused by talk's rules (too long, too fast, talk closed) leaves the
   moves played and says why in the answer.

The outcome: APPLIED when a move was played, MESSAGE for a message alone, REFUSED or STALE as
before (a refused message alone is REFUSED); the row's detail says what became of the message
(``message``: "posted", or ``message_error``: the reason, worded), and the answer says both.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from typing import Any, TypeVar

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone, translation

from games import ratelimit
from games.engine import IllegalAction
from games.error_messages import service_error_text
from games.models import Event, Game, GameStatus, Seat
from games.services import GameServiceError, action_submit, only_step
from games.state import engine_state
from talk.models import Via
from talk.services import TalkError, message_post

from .. import links
from ..models import InboundMessage, InboundOutcome
from . import answers, routes
from .answers import ANSWERED
from .body import message_text, written_lines
from .grammar import Vocabulary, fold, looks_like_move, read_line
from .vocabulary import vocabulary

log = logging.getLogger(__name__)

# sysexits.h: what a mail server's pipe transport makes of the exit status
EX_OK, EX_DATAERR, EX_NOUSER, EX_TEMPFAIL = 0, 65, 67, 75
#: a row still "processing" this long after it arrived was left by a process that died
STUCK_AFTER = timedelta(minutes=15)
#: deeper MIME nesting is refused before the parser's recursion (a frame or three per level)
#: nears Python's limit; mail clients nest a forwarded thread a handful of levels deep
MAX_MIME_DEPTH = 30
#: more parts than this are refused while parsing: each costs memory, however small its bytes
MAX_MIME_PARTS = 1000
T = TypeVar("T")


@dataclass(frozen=True)
class Result:
    outcome: str
    status: int
    answered: bool = False


class TemporaryFailure(Exception):
    """The reply could not be handled now (the database is away): the mail server retries."""


def receive(
    raw: bytes, *, recipient: str | None = None, envelope_sender: str | None = None
) -> Result:
    """Handle one RFC 5322 message. ``recipient`` is the envelope recipient when the caller
    knows it (else the message's Delivered-To, X-Original-To, To or Cc); ``envelope_sender``
    the envelope's MAIL FROM ("" for a bounce)."""
    try:
        return _receive(raw, recipient, envelope_sender)
    except DatabaseError as exc:
        log.warning("inbound mail: temporary failure", extra={"error": type(exc).__name__})
        raise TemporaryFailure(str(exc)) from exc


def _message_id(message: EmailMessage | None, raw: bytes) -> str:
    found = _safely(
        lambda: str(message.get("Message-ID", "") if message is not None else "").strip(), ""
    )
    if found and len(found) <= 255:
        return found
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@inbound>"


def _record(message_id: str, outcome: str, **fields: Any) -> InboundMessage:
    row, _ = InboundMessage.objects.get_or_create(
        message_id=message_id, defaults={"outcome": outcome, **fields}
    )
    return row


def _receive(raw: bytes, recipient: str | None, envelope_sender: str | None) -> Result:
    if len(raw) > settings.INBOUND_MAX_BYTES:
        head = _safely(lambda: _parse(raw[:65536], headersonly=True), None)
        message_id = _message_id(head, raw)
        _record(message_id, InboundOutcome.TOO_LARGE, size=len(raw))
        return Result(InboundOutcome.TOO_LARGE, EX_DATAERR)
    found = _read(raw, recipient, envelope_sender)
    unparseable = answers.detail(error="unparseable") if found.lines is None else ""
    if found.sender is None:
        _record(found.message_id, InboundOutcome.GARBAGE, size=len(raw), detail=unparseable)
        return Result(InboundOutcome.GARBAGE, EX_DATAERR)
    row, fresh = _claim(found.message_id, sender=found.sender, size=len(raw), detail=unparseable)
    if not fresh:
        return _again(row)
    if found.key is None and found.routed is not None:
        return _receive_routed(row, found)
    if found.automatic:
        return _close(row, InboundOutcome.LOOP, EX_OK)
    if not ratelimit.hit("inbound", found.sender.lower(), settings.INBOUND_RATE_LIMIT):
        return _close(row, InboundOutcome.RATE_LIMITED, EX_OK)
    key = found.key
    game = Game.objects.filter(pk=key.game_id).first() if key else None
    if key is None or game is None:
        return _close(row, InboundOutcome.UNKNOWN_ADDRESS, EX_NOUSER)
    row.game, row.seat, row.turn_seq = game, key.seat, key.turn_seq
    if found.dmarc_failed:
        return _close(row, InboundOutcome.DMARC_FAIL, EX_OK)
    seat = Seat.objects.filter(game=game, index=key.seat).select_related("user").first()
    user = seat.user if seat is not None else None
    if user is None or not _verified(user, found.sender):
        return _close(row, InboundOutcome.FORGED, EX_OK)
    if found.lines is None:  # the seat's player sent it: they learn why nothing was played
        outcome, detail = InboundOutcome.REFUSED, unparseable
    else:
        with translation.override(user.language or settings.LANGUAGE_CODE):
            outcome, detail = _play(game, key, user, found.lines, found.message_id)
    row.detail = detail
    _close(row, outcome, EX_OK)
    answered = answers.answer(row, user, in_reply_to=found.message_id)
    return Result(outcome, EX_OK, answered)


# -- reading the bytes -----------------------------------------------------------------------------
class Unparseable(Exception):
    """The message nests its MIME parts deeper, or has more of them, than a reply can."""


class _BoundedMessage(EmailMessage):
    """A part that refuses children past ``MAX_MIME_DEPTH`` or ``MAX_MIME_PARTS``: the parser
    attaches every part to its parent as it meets it, so the parse stops there, in bounded time,
    memory and stack, instead of recursing until Python's limit."""

    depth = 0
    #: the parts of the whole message so far, shared by its parts (a list, to be mutable)
    count: list[int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.count = [1]

    def attach(self, payload: Any) -> None:
        if isinstance(payload, _BoundedMessage):
            payload.depth = self.depth + 1
            payload.count = self.count
            self.count[0] += 1
            if payload.depth > MAX_MIME_DEPTH or self.count[0] > MAX_MIME_PARTS:
                raise Unparseable(f"depth {payload.depth}, {self.count[0]} parts")
        super().attach(payload)


_BOUNDED = policy.default.clone(message_factory=_BoundedMessage)


@dataclass(frozen=True)
class Reading:
    """What the handler needs of a message, read before anything is stored."""

    message_id: str
    sender: str | None
    automatic: bool
    key: links.ReplyKey | None
    dmarc_failed: bool
    #: the lines the player wrote; None: the message could not be parsed or its text read
    lines: list[str] | None
    #: (prefix, token) of an address another app answers (``routes.REPLY_ROUTES``)
    routed: tuple[str, str] | None = None
    #: the parsed message, for a route that reads more of it (a bounce's report)
    message: EmailMessage | None = None


def _safely(read: Callable[[], T], default: T) -> T:
    """``read()``, or ``default`` when the email library fails on the bytes it reads: a header
    nested past its parser's recursion, a structure it cannot handle. Bytes never fix
    themselves, so such a failure is the message's, not a reason to try again."""
    try:
        return read()
    except Exception as exc:  # RecursionError, AttributeError... from the email library
        log.warning("inbound mail: unreadable", extra={"error": type(exc).__name__})
        return default


def _parse(raw: bytes, *, headersonly: bool = False) -> EmailMessage:
    """The whole message, bounded (``_BoundedMessage``), or its top-level headers alone."""
    parsed = BytesParser(policy=_BOUNDED).parsebytes(raw, headersonly=headersonly)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _read(raw: bytes, recipient: str | None, envelope_sender: str | None) -> Reading:
    """Every reading of the message, each guarded (``_safely``); when the MIME structure cannot
    be parsed, the top-level headers still say who sent it and to which turn. A header that
    cannot be read counts against the message: automatic, failing DMARC (never answered)."""
    message = _safely(lambda: _parse(raw), None)
    head = message if message is not None else _safely(lambda: _parse(raw, headersonly=True), None)
    if head is None:
        return Reading(_message_id(None, raw), None, False, None, False, None)
    lines = None
    if message is not None:
        lines = _safely(lambda: written_lines(message_text(message)), None)
    return Reading(
        message_id=_message_id(head, raw),
        sender=_safely(lambda: _sender(head), None),
        automatic=_safely(lambda: _is_automatic(head, envelope_sender), True),
        key=_safely(lambda: _key(head, recipient), None),
        dmarc_failed=_safely(lambda: _dmarc_failed(head), True),
        lines=lines,
        routed=_safely(lambda: _routed(head, recipient), None),
        message=message,
    )


# -- the message's parts ---------------------------------------------------------------------------
def _sender(message: EmailMessage) -> str | None:
    try:
        _name, address = parseaddr(str(message.get("From", "")))
    except (ValueError, TypeError, IndexError):
        return None
    if "@" not in address:
        return None
    try:
        Address(addr_spec=address)
    except (ValueError, IndexError):
        return None
    return address


_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
_DAEMONS = re.compile(r"^(mailer-daemon|postmaster)@", re.IGNORECASE)


def _is_automatic(message: EmailMessage, envelope_sender: str | None) -> bool:
    """An auto-reply, a bounce or a list's mail (RFC 3834), which must never be answered."""
    auto = str(message.get("Auto-Submitted", "")).strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return True
    if envelope_sender == "" or str(message.get("Return-Path", "")).strip() == "<>":
        return True
    if _DAEMONS.match(_sender(message) or ""):
        return True
    if any(message.get(h) for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Response")):
        return True
    return str(message.get("Precedence", "")).strip().lower() in _AUTO_PRECEDENCE


def _candidates(message: EmailMessage, recipient: str | None) -> list[str]:
    """The addresses it may have been sent to: the envelope's recipient, else the headers'
    (each read on its own: a header the email library cannot parse hides no other)."""
    candidates = [recipient] if recipient else []
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        candidates += _safely(functools.partial(_addresses, message, header), [])
    return candidates


def _routed(message: EmailMessage, recipient: str | None) -> tuple[str, str] | None:
    """(prefix, token) of the first address another app answers (``routes.REPLY_ROUTES``)."""
    for address in _candidates(message, recipient):
        found = routes.route_of(address or "")
        if found is not None:
            return found
    return None


def _key(message: EmailMessage, recipient: str | None) -> links.ReplyKey | None:
    """The turn the reply address names."""
    for address in _candidates(message, recipient):
        token = links.reply_token_of(address or "")
        if token is None:
            continue
        try:
            return links.reply_read(token)
        except links.LinkError:
            continue
    return None


def _addresses(message: EmailMessage, header: str) -> list[str]:
    return [addr for _, addr in getaddresses([str(v) for v in message.get_all(header, [])])]


def _dmarc_failed(message: EmailMessage) -> bool:
    """Our own receiving server (INBOUND_AUTHSERV_ID) said dmarc=fail; the same header from
    any other server proves nothing and is ignored (RFC 8601 section 5)."""
    ours = settings.INBOUND_AUTHSERV_ID.strip().lower()
    if not ours:
        return False
    for value in message.get_all("Authentication-Results", []):
        text = " ".join(str(value).split())
        authserv = text.split(";", 1)[0].strip().split()[0].lower() if text else ""
        if authserv == ours and re.search(r"\bdmarc\s*=\s*fail\b", text, re.IGNORECASE):
            return True
    return False


def _verified(user: Any, sender: str) -> bool:
    return EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()


# -- the row ---------------------------------------------------------------------------------------
def _claim(message_id: str, **fields: Any) -> tuple[InboundMessage, bool]:
    """The row of this message, and whether this call is the one to handle it: a new row, or
    one a dead process left "processing" long ago (taken over with a conditional update)."""
    try:
        with transaction.atomic():
            return InboundMessage.objects.create(message_id=message_id, **fields), True
    except IntegrityError:
        pass
    row = InboundMessage.objects.get(message_id=message_id)
    taken = InboundMessage.objects.filter(
        pk=row.pk,
        outcome=InboundOutcome.PROCESSING,
        received_at__lt=timezone.now() - STUCK_AFTER,
    ).update(received_at=timezone.now())
    return row, bool(taken)


def _close(row: InboundMessage, outcome: str, status: int) -> Result:
    row.outcome = outcome
    row.save(update_fields=["outcome", "detail", "game", "seat", "turn_seq"])
    log.info("inbound mail", extra={"outcome": outcome, "game_id": row.game_id})
    return Result(outcome, status)


def _again(row: InboundMessage) -> Result:
    """A message seen before: it acts no more; its answer goes out if it never did."""
    if row.outcome == InboundOutcome.PROCESSING:
        return Result(row.outcome, EX_TEMPFAIL)  # another process is on it: come back later
    route = _route_of_row(row)
    if route is not None:
        return Result(row.outcome, EX_OK, _route_answer(route, row, row.message_id))
    answered = False
    if row.outcome in ANSWERED and row.answered_at is None and row.game is not None:
        seat = Seat.objects.filter(game=row.game, index=row.seat).select_related("user").first()
        if seat is not None and seat.user is not None:
            answered = answers.answer(row, seat.user, in_reply_to=row.message_id)
    return Result(row.outcome, EX_OK, answered)


# -- addresses other apps answer -----------------------------------------------------------------
def _receive_routed(row: InboundMessage, found: Reading) -> Result:
    """The same checks as a turn's reply, in the same order; then the route checks the sender,
    acts and answers (``routes``). A bounce reaches only a route that accepts automatic mail,
    and is never rate-limited (a mail server's reports are not a person's replies)."""
    assert found.routed is not None and found.sender is not None
    prefix, token = found.routed
    route = routes.REPLY_ROUTES[prefix]
    if found.automatic and not route.accepts_automatic:
        return _close(row, InboundOutcome.LOOP, EX_OK)
    if not found.automatic and not ratelimit.hit(
        "inbound", found.sender.lower(), settings.INBOUND_RATE_LIMIT
    ):
        return _close(row, InboundOutcome.RATE_LIMITED, EX_OK)
    target = route.read(token)
    if target is None:
        return _close(row, InboundOutcome.UNKNOWN_ADDRESS, EX_NOUSER)
    if found.dmarc_failed:
        return _close(row, InboundOutcome.DMARC_FAIL, EX_OK)
    reply = routes.RoutedReply(
        target=target,
        sender=found.sender,
        message_id=found.message_id,
        lines=found.lines,
        automatic=found.automatic,
        message=found.message,
    )
    done = route.handle(reply)
    # the prefix goes into the row: a redelivered message finds its route's answer again
    row.detail = json.dumps({**json.loads(done.detail or "{}"), "route": prefix})
    row.game_id = done.game_id
    _close(row, done.outcome, EX_OK)
    return Result(done.outcome, EX_OK, _route_answer(route, row, found.message_id))


def _route_of_row(row: InboundMessage) -> routes.ReplyRoute | None:
    try:
        prefix = json.loads(row.detail or "{}").get("route")
    except (ValueError, AttributeError):
        return None
    return routes.REPLY_ROUTES.get(prefix) if isinstance(prefix, str) else None


def _route_answer(route: routes.ReplyRoute, row: InboundMessage, in_reply_to: str) -> bool:
    """The route's answer, once: only for the answered outcomes, and not again once sent."""
    if row.outcome not in ANSWERED or row.answered_at is not None:
        return False
    if not route.answer(row, in_reply_to):
        return False
    InboundMessage.objects.filter(pk=row.pk, answered_at=None).update(answered_at=timezone.now())
    row.answered_at = timezone.now()
    return True


# -- the moves and the message ---------------------------------------------------------------------
def _play(
    game: Game, key: links.ReplyKey, user: Any, lines: list[str], reply_id: str
) -> tuple[str, str]:
    """Read the lines as moves of the turn ``key`` names and a message under them (the rule:
    the module's docstring), apply the moves and post the message; the outcome and the row's
    detail (JSON-like text: what was applied and posted, or why not)."""
    words = vocabulary(translation.get_language() or "en")
    lines = _without_sign_off(lines, user)
    if (
        game.frozen
        or game.status != GameStatus.RUNNING
        or game.to_move != key.seat
        or game.turn_seq != key.turn_seq
    ):
        return _off_turn(game, user, lines, words, reply_id)
    if not lines:
        return InboundOutcome.HELP, answers.detail()
    engine = engine_state(game)
    planned: list[str] = []
    taken: list[str] = []  # what the site takes for the player after the last planned move
    ignored = None
    message: list[str] = []
    for index, line in enumerate(lines):
        if taken and read_line(line, taken[:1], words).action == taken[0]:
            taken.pop(0)  # they wrote the step the site takes for them anyway (the only draw)
            continue
        taken.clear()
        if engine.finished or engine.to_move != key.seat:
            if looks_like_move(line, words):
                ignored = line  # the turn is over: the moves of another are not for it
            else:
                message = lines[index:]
            break
        reading = read_line(line, engine.legal(), words)
        if reading.help and not planned:
            return InboundOutcome.HELP, answers.detail()
        if reading.action is None and not looks_like_move(line, words):
            message = lines[index:]  # words to the table
            break
        if reading.action is None and planned and reading.spelled is None:
            ignored = line  # something like a move under the moves: left unread
            break
        if reading.action is None:
            return InboundOutcome.REFUSED, _refusal(engine, key.seat, line, reading)
        engine.apply(reading.action, player=key.seat)
        planned.append(reading.action)
        # as action_submit does: a step left with one choice is taken for the player
        while engine.to_move == key.seat and (step := only_step(engine)) is not None:
            engine.apply(step, player=key.seat)
            taken.append(step)
    applied: list[str] = []
    seq = game.seq
    for action in planned:
        try:
            action_submit(
                game_id=game.pk, seat=key.seat, action=action, expected_seq=seq, user=user
            )
            before, seq = seq, Game.objects.values_list("seq", flat=True).get(pk=game.pk)
        except GameServiceError as exc:
            outcome = InboundOutcome.APPLIED if applied else InboundOutcome.STALE
            return outcome, answers.detail(
                applied=applied,
                error="service",
                reason=service_error_text(exc),
                line=action,
                **_post(game, user, message, reply_id),
            )
        # what was stored: the move, and any step the site took for the player after it
        applied += (
            Event.objects.filter(game=game, seq__gt=before, seq__lte=seq)
            .order_by("seq")
            .values_list("action", flat=True)
        )
    posted = _post(game, user, message, reply_id)
    if not applied:
        return _message_outcome(posted)
    return InboundOutcome.APPLIED, answers.detail(applied=applied, ignored=ignored, **posted)


def _off_turn(
    game: Game, user: Any, lines: list[str], words: Vocabulary, reply_id: str
) -> tuple[str, str]:
    """A reply when the turn its address names is not on (over, or never the player's: a
    message email's reply while another plays). The lines at its top that look like moves are
    not played; the rest is a message, posted all the same (a message needs no turn)."""
    moves = 0
    while moves < len(lines) and looks_like_move(lines[moves], words):
        moves += 1
    posted = _post(game, user, lines[moves:], reply_id)
    if not moves and lines:
        return _message_outcome(posted)
    return InboundOutcome.STALE, answers.detail(error="stale", **posted)


def _message_outcome(posted: dict[str, str]) -> tuple[str, str]:
    """The outcome of a reply that played no move: its message posted or refused."""
    if posted.get("message"):
        return InboundOutcome.MESSAGE, answers.detail(**posted)
    if posted.get("message_error"):
        return InboundOutcome.REFUSED, answers.detail(error="message", **posted)
    return InboundOutcome.HELP, answers.detail()  # nothing but a sign-off: as an empty reply


def _post(game: Game, user: Any, lines: list[str], reply_id: str) -> dict[str, str]:
    """Post ``lines`` as the player's message at the table; what became of it, for the row's
    detail (nothing when there is no message). The reply's Message-ID posts it once, should
    the reply be handled again after a worker died before closing its row."""
    if not lines:
        return {}
    try:
        message_post(
            game_id=game.pk,
            user=user,
            text="\n".join(lines),
            via=Via.EMAIL,
            reply_message_id=reply_id,
        )
    except TalkError as exc:
        return {"message_error": service_error_text(exc)}
    return {"message": "posted"}


def _without_sign_off(lines: list[str], user: Any) -> list[str]:
    """The lines without a last one that is only the player's name ("Anna", "- Anna"): a
    sign-off, not words to the table."""
    names = {fold(user.username), fold(user.public_name)}
    display = (getattr(user, "display_name", "") or "").split()
    if display:
        names |= {fold(" ".join(display)), fold(display[0])}
    if lines and fold(lines[-1].strip(" -\u2013\u2014~.,!")) in names - {""}:
        return lines[:-1]
    return lines


def _refusal(engine: Any, seat: int, line: str, reading: Any) -> str:
    if reading.spelled is None:
        return answers.detail(error="unreadable", line=line)
    if reading.candidates:
        return answers.detail(error="ambiguous", line=line, candidates=list(reading.candidates))
    try:
        engine.apply(reading.spelled, player=seat)
    except IllegalAction as exc:
        return answers.detail(error="illegal", line=line, code=exc.code, params=exc.params)
    return answers.detail(error="illegal", line=line)
