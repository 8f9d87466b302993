"""The legal moves as reply lines: what a turn email (and an answer) tells the player to write."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import translation

from .. import links
from .grammar import short_form
from .vocabulary import vocabulary


@dataclass(frozen=True)
class ReplyChoice:
    #: the line to write, in the player's words ("zöld 5 nagy")
    text: str
    #: what it does, as the game page's button says it
    label: str


def reply_section(
    legal: list[str], choices: Iterable[tuple[str, str]], key: links.ReplyKey
) -> dict[str, Any]:
    """The template context of the "answer this email" part, in the active language; empty
    (no such part, no Reply-To) while INBOUND_EMAIL_DOMAIN is unset. ``choices``: each legal
    action and its label, in the game page's order (by card, then wishes, clovers, draws), as
    the email's links already grouped them (``presenters.action_groups``, worked out once)."""
    address = links.reply_address(key)
    if address is None:
        return {}
    words = vocabulary(translation.get_language() or "en")
    replies = [ReplyChoice(short_form(action, words), label) for action, label in choices]
    plays = any(action.split()[0] in ("play", "discard", "wish") for action in legal)
    return {
        "reply_address": address,
        "replies": replies,
        "draw_deck": short_form("draw deck", words) if plays else "",
        "draw_pile": short_form("draw r", words) if plays else "",
        "help_word": words.shown("help"),
    }
