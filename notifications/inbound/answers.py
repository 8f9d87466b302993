"""The answer to a reply: what was played and the new position, or why nothing was, with the
legal moves; whether its message was posted at the table, or why not; in the player's
language, from the stored row (so it can be sent again, once, if the first try failed)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games import presenters
from games.error_messages import engine_error_text
from games.models import GameStatus, Seat
from keltis_site import mail_headers

from .. import emails, links
from ..models import InboundMessage, InboundOutcome

#: the outcomes answered by email (the others are not: see ``handler``)
ANSWERED = {
    InboundOutcome.APPLIED,
    InboundOutcome.MESSAGE,
    InboundOutcome.HELP,
    InboundOutcome.REFUSED,
    InboundOutcome.STALE,
}


def detail(**fields: Any) -> str:
    """The row's record of what happened, as JSON: ``applied`` (actions), ``error`` (stale,
    unreadable, ambiguous, illegal, service; unparseable: the message itself), ``line``,
    ``candidates``, ``code``/``params`` (the engine's refusal), ``reason`` (a service refusal,
    worded), ``ignored`` (a line), ``message`` ("posted": the reply's message is at the table)
    or ``message_error`` (why it is not, worded)."""
    return json.dumps(
        {k: v for k, v in fields.items() if v not in (None, [], "")}, ensure_ascii=False
    )


def _problem(kind: str, found: dict[str, Any]) -> str:
    error, line = found.get("error"), found.get("line", "")
    if error == "unparseable":
        return _(
            "Nothing was changed: your email could not be read (its structure is broken or "
            "nested too deeply). Reply with your moves as plain text."
        )
    if error == "stale" and found.get("message"):
        return _("Your moves were for a turn that is over: they were not played.")
    if error == "stale":
        return _("Your reply was for a turn that is over: nothing was changed.")
    if error == "message":
        return ""  # said by the message's own line
    if error == "unreadable":
        return _('Nothing was changed: "%(line)s" is not a move that can be read.') % {"line": line}
    if error == "ambiguous":
        options = ", ".join(presenters.action_label(kind, a) for a in found.get("candidates", []))
        return _('Nothing was changed: "%(line)s" could mean several moves (%(options)s).') % {
            "line": line,
            "options": options,
        }
    if error == "illegal":
        code = found.get("code")
        reason = engine_error_text(code, found.get("params", {})) if code else ""
        return _('Nothing was changed: "%(line)s" cannot be played now. %(reason)s') % {
            "line": line,
            "reason": reason,
        }
    if error == "service":
        return _('"%(line)s" was not played: %(reason)s') % {
            "line": presenters.action_label(kind, line),
            "reason": found.get("reason", ""),
        }
    return ""


def _context(row: InboundMessage, user: Any) -> dict[str, Any]:
    game = row.game
    assert game is not None
    game.refresh_from_db()
    found = json.loads(row.detail or "{}")
    context: dict[str, Any] = {
        **emails.common_context(user),
        "title": emails.game_title(game),
        "applied": [presenters.event_text(game.kind, a) for a in found.get("applied", [])],
        "problem": _problem(game.kind, found),
        "ignored": (
            _('The lines from "%(line)s" on were not read as moves.') % {"line": found["ignored"]}
            if found.get("ignored")
            else ""
        ),
        "finished": game.status == GameStatus.FINISHED,
        "to_move_name": "",
        "message_posted": bool(found.get("message")),
        "message_problem": (
            _("Your message was not posted: %(reason)s") % {"reason": found["message_error"]}
            if found.get("message_error")
            else ""
        ),
    }
    turn = emails.turn_context(game, user, timezone.now())
    if turn is not None:
        return {**context, **turn, "my_turn": True}
    context["game_url"] = links.absolute(reverse("game_detail", args=[game.pk]))
    if game.status == GameStatus.RUNNING and game.to_move is not None:
        seat = Seat.objects.filter(game=game, index=game.to_move).select_related("user").first()
        context["to_move_name"] = seat.name if seat is not None else ""
    return context


def answer(row: InboundMessage, user: Any, *, in_reply_to: str) -> bool:
    """Send the row's answer unless it went out already; True once sent."""
    if row.outcome not in ANSWERED or row.answered_at is not None or row.game is None:
        return False
    language = user.language or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(emails.zone_of(user)):
        headers = mail_headers.automatic(f"inbound-answer-{row.pk}")
        headers["In-Reply-To"] = headers["References"] = in_reply_to
        message = emails.compose("inbound_answer", user, _context(row, user), headers)
    message.send()
    InboundMessage.objects.filter(pk=row.pk, answered_at=None).update(answered_at=timezone.now())
    row.answered_at = timezone.now()
    return True
