"""Writing at a table, and a player's own choices about its talk (mute, report). Every way in
(the page, a reply by email, the API) posts through ``message_post``, so each rule holds once.

What a post makes due elsewhere is told to ``POSTED_HOOKS`` inside its transaction (the
notifications' outbox rows are written with the message), and the game's open pages hear of
it once it has committed (``games.services.changed``: the live pages, the API's stream).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import ratelimit
from games import services as game_services
from games.models import Game, Seat
from games.services import GameServiceError

from . import rules
from .models import Message, Mute, Report, Suspension, Via

#: called with each new message inside the transaction that stores it (notifications: the
#: outbox rows of the other players who want every message)
POSTED_HOOKS: list[Callable[[Message], None]] = []
#: called with a message staff hid, inside the transaction that hides it (live: the game's
#: open pages show "hidden by staff" in its place)
HIDDEN_HOOKS: list[Callable[[Message], None]] = []


class TalkError(GameServiceError):
    """A refused message or choice, worded for the player (nothing was stored)."""

    code = "talk_refused"
    default_message = _("This message cannot be posted.")


class NotAtTheTable(TalkError):
    code = "talk_not_a_player"
    default_message = _("Only the players of this table can write here.")


class TalkClosed(TalkError):
    code = "talk_closed"
    default_message = _("The talk at this table is closed.")


class TalkSuspended(TalkError):
    code = "talk_suspended"
    default_message = _("Staff have suspended you from table talk.")


class TalkTooFast(TalkError):
    code = "talk_rate_limited"
    default_message = _("You are writing too fast: wait a minute before the next message.")


class MessageNotValid(TalkError):
    code = "talk_message_not_valid"


def _seat_of(game: Game, user: Any) -> Seat | None:
    return Seat.objects.filter(game=game, user_id=user.pk).first()


def suspended(user: Any, now: Any = None) -> bool:
    row = Suspension.objects.filter(user_id=user.pk).first()
    return row is not None and row.active(now)


def message_post(
    *, game_id: int, user: Any, text: str, via: str = Via.PAGE, reply_message_id: str = ""
) -> Message:
    """Store what ``user`` wrote at their table: a person seated there (never a bot, nor a bot
    account), while its talk is open, not suspended, within the rate limits, and a text that
    passes ``rules.clean_text``. Raises a TalkError (or Game.DoesNotExist).

    ``reply_message_id`` (an email reply's Message-ID) posts once: the same reply handled again
    returns the message it posted, and nothing notifies twice."""
    if reply_message_id and (
        found := Message.objects.filter(reply_message_id=reply_message_id).first()
    ):
        return found
    game = Game.objects.get(pk=game_id)
    if getattr(user, "is_bot", False) or _seat_of(game, user) is None:
        raise NotAtTheTable()
    if not rules.is_open(game):
        raise TalkClosed()
    if suspended(user):
        raise TalkSuspended()
    try:
        cleaned = rules.clean_text(text)
    except ValidationError as exc:
        raise MessageNotValid(exc.messages[0]) from None
    key = f"{user.pk}:{game.pk}"
    if not (
        ratelimit.hit("talk-minute", key, settings.TALK_RATE_PER_MINUTE)
        and ratelimit.hit("talk-hour", key, settings.TALK_RATE_PER_HOUR)
    ):
        raise TalkTooFast()
    try:
        with transaction.atomic():
            message = Message.objects.create(
                game=game,
                author=user,
                seq=game.seq,
                text=cleaned,
                via=via,
                reply_message_id=reply_message_id,
            )
            for hook in POSTED_HOOKS:
                hook(message)
            game_services.changed(game.pk)
    except IntegrityError:  # the same reply, handled at the same time by another process
        if not reply_message_id:
            raise
        return Message.objects.get(reply_message_id=reply_message_id)
    return message


def mute(*, game_id: int, user: Any, muted: bool = True) -> None:
    """Fold a table's talk away for ``user`` (or unfold it): nothing of it notifies them."""
    if muted:
        try:
            with transaction.atomic():
                Mute.objects.get_or_create(user_id=user.pk, game_id=game_id)
        except IntegrityError:  # a racing request made it first
            pass
    else:
        Mute.objects.filter(user_id=user.pk, game_id=game_id).delete()


def is_muted(game_id: int, user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return Mute.objects.filter(user_id=user.pk, game_id=game_id).exists()


def report(*, message_id: int, user: Any, reason: str = "") -> Report:
    """Ask staff to look at a message: anyone who may read it, once per message."""
    message = Message.objects.select_related("game").get(pk=message_id)
    if not rules.may_read(message.game, user) or message.author_id == user.pk:
        raise TalkError(_("You cannot report this message."))
    found, _created = Report.objects.get_or_create(
        message=message, reporter=user, defaults={"reason": reason[:200]}
    )
    return found


def message_hide(*, message_id: int, staff: Any) -> Message:
    """Staff hide a message: every page shows "hidden by staff" in its place; its reports are
    resolved."""
    with transaction.atomic():
        message = Message.objects.select_for_update().get(pk=message_id)
        if message.hidden_at is None:
            message.hidden_at = timezone.now()
            message.hidden_by = staff
            message.save(update_fields=["hidden_at", "hidden_by"])
        Report.objects.filter(message=message, resolved_at=None).update(resolved_at=timezone.now())
        for hook in HIDDEN_HOOKS:
            hook(message)
        game_services.changed(message.game_id)
    return message


def suspend(*, user: Any, until: Any = None, reason: str = "") -> Suspension:
    """Staff take ``user`` out of table talk until ``until`` (None: until lifted)."""
    row, _created = Suspension.objects.update_or_create(
        user=user, defaults={"until": until, "reason": reason[:200], "created_at": timezone.now()}
    )
    return row
