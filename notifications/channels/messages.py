"""A row as a short message for the channels that are not email (push, chat webhook).

The title names the game, the body says what happened, the address opens the game: public
facts only (who moved and what they played, as the game's history page shows everybody; a
draw from the deck never names its card), never a hand, the deck or the removed cards.
Written in the player's language; None when there is nothing to say (the same rules as the
email's: the turn is over, the game is not finished).

Table talk (``NotificationKind.MESSAGE``) says who wrote and what, cut short: plain text as the
player typed it (a push is shown as text; each chat format escapes what it must:
``webhook.payload``), never HTML, and nothing once it is no news (``talk_news.still_news``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games import presenters, selectors
from games.models import Game, GameStatus

from .. import emails, links, talk_news
from ..models import Notification, NotificationKind
from ..reader import waiting_games, zone_of


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    url: str
    #: one per game and kind: a newer message of the same tag replaces the older on a phone
    tag: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def describe(notification: Notification, reads: selectors.GameReads) -> Message | None:
    user = notification.user
    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(zone_of(user)),
    ):
        return _describe(notification, user, reads)


def _describe(notification: Notification, user: User, reads: selectors.GameReads) -> Message | None:
    kind = notification.kind
    if kind == NotificationKind.DIGEST:
        count = len(waiting_games(user=user))
        if not count:
            return None
        body = ngettext(
            "%(count)d game is waiting for your move.",
            "%(count)d games are waiting for your move.",
            count,
        ) % {"count": count}
        return Message(_("Keltis by mail"), body, links.absolute(reverse("my_games")), "digest")
    if notification.game is None:
        return None
    game = reads.game(notification.game)
    title = emails.game_title(game)
    url = links.absolute(reverse("game_detail", args=[game.pk]))
    tag = f"game-{game.pk}"
    if kind in (NotificationKind.TURN, NotificationKind.REMINDER):
        if emails._turn_is_on(notification, user, reads) is None:
            return None
        body = _("It is your turn.")
        last = _last_move(game, notification.seat)
        if kind == NotificationKind.REMINDER:
            if game.deadline is None or game.deadline <= timezone.now():
                return None
            body = _("Your turn: %(left)s left.") % {"left": timeuntil(game.deadline)}
        elif last:
            body = f"{last} {body}"
        return Message(title, body, url, tag)
    if kind == NotificationKind.MESSAGE:
        message = notification.message
        if message is None or not talk_news.still_news(message, user):
            return None
        body = _("%(name)s: %(text)s") % {
            "name": message.author.public_name,
            "text": talk_news.short(message.text),
        }
        return Message(title, body, url, f"talk-{game.pk}")
    if kind == NotificationKind.TIMEOUT:
        seat = next((s for s in reads.seat_rows(game) if s.index == notification.seat), None)
        if seat is None:
            return None
        if seat.user_id == user.pk:
            body = _("Your time for a move ran out.")
        else:
            body = _("%(name)s's time for a move ran out.") % {"name": seat.name}
        return Message(title, body, url, tag)
    if kind == NotificationKind.FINISHED:
        if game.status != GameStatus.FINISHED:
            return None
        mine = next((s for s in reads.seat_rows(game) if s.user_id == user.pk), None)
        if mine is not None and mine.place == 1:
            body = _("Game over: you won.")
        elif mine is not None and mine.place:
            body = _("Game over: you came %(place)d.") % {"place": mine.place}
        else:
            body = _("Game over.")
        return Message(title, body, url, tag)
    return None


def _last_move(game: Game, seat: int | None) -> str:
    """The others' latest move in the history's public words ("Anna played red 5."): a draw
    from the deck names no card. Empty when there is none."""
    for event in reversed(selectors.game_history(game=game).events):
        if event.seat != seat:
            text = presenters.event_text(game.kind, event.action, event.seat_name, event.drawn)
            return text if text.endswith(".") else f"{text}."
    return ""


def test_message(user: User) -> Message:
    """What "send me a test" sends, in the player's language."""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        return Message(
            _("Keltis by mail"),
            _("A test: this is how your game news will reach you."),
            links.absolute(reverse("email_preferences")),
            "test",
        )
