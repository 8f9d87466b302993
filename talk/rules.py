"""What a message may hold, and who may write or read a table's talk: plain functions over the
rows, shared by the page, the API and the replies by email."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.display_names import has_stray_marks, is_refused_character
from games.models import Game, GameStatus
from games.visibility import may_watch

#: the line breaks a message may hold (every other control or format character is refused)
LINE_BREAKS = {"\n"}


def clean_text(text: str) -> str:
    """The message as it is stored: line breaks made ``\\n``, blank lines at the ends and
    trailing spaces dropped. Raises ValidationError (worded for the writer) for an empty or
    too long message, or one with control, invisible or text-direction characters or stray
    accents, as display names refuse them."""
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip()
    if not text:
        raise ValidationError(_("Write something first."), code="empty")
    limit = settings.TALK_MAX_LENGTH
    if len(text) > limit:
        raise ValidationError(
            ngettext_lazy(
                "A message has at most %(limit)s character; this one has %(length)s.",
                "A message has at most %(limit)s characters; this one has %(length)s.",
                "limit",
            )
            % {"limit": limit, "length": len(text)},
            code="too_long",
        )
    if any(c not in LINE_BREAKS and is_refused_character(c) for c in text) or has_stray_marks(text):
        raise ValidationError(
            _(
                "A message cannot contain invisible or control characters, characters that "
                "change the direction of the text, or accents that belong to no letter."
            ),
            code="characters",
        )
    return text


def talk_closes_at(game: Game) -> datetime | None:
    """When a finished game's talk closes (None while it runs or waits: open)."""
    if game.finished_at is None:
        return None
    return game.finished_at + timedelta(days=settings.TALK_OPEN_DAYS_AFTER_END)


def is_open(game: Game, now: datetime | None = None) -> bool:
    """Talk is open while a table waits or plays, and for TALK_OPEN_DAYS_AFTER_END days after
    its end; never at a cancelled table."""
    if game.status == GameStatus.CANCELLED:
        return False
    closes = talk_closes_at(game)
    return closes is None or (now or timezone.now()) < closes


def may_read(game: Game, user: Any) -> bool:
    """The players of the table, and for a public table anyone who may watch it."""
    return may_watch(game, user)


def links_allowed(author: Any, now: datetime | None = None) -> bool:
    """Whether ``author``'s links are shown as links: accounts older than
    TALK_LINKS_AFTER_DAYS (a new account's links are text, so a spammer gains nothing)."""
    joined = getattr(author, "date_joined", None)
    if joined is None:
        return False
    return (now or timezone.now()) - joined >= timedelta(days=settings.TALK_LINKS_AFTER_DAYS)
