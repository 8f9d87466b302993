"""The calendar channel: a per-player secret ICS feed (RFC 5545) of the moves they owe.

What a player expects in their calendar is the deadline of each move that is theirs to make:
one event per running game where their seat is to move, at the deadline, with an alarm
before it. A game where someone else is to move has no event (the player owes nothing
there); the event comes back, with the same UID, when the turn is theirs again.

- UID ``game-<id>-seat-<n>@<site host>``: stable for the whole game, so a calendar moves the
  event rather than adding one per turn.
- SEQUENCE is the game's ``turn_seq`` (the number of events when the turn began) plus the
  times a deadline was moved inside a turn (a vacation, an unfreeze: ``deadline_moves``):
  it grows with every new turn and with every such move, so each new deadline is a newer
  revision (RFC 5545 3.8.7.4). DTSTAMP and LAST-MODIFIED are when the deadline was last
  set: the turn's start, or a later move.
- Only what every player at the table sees: the game, its players' public names, the
  deadline and the game's address. No card, hand or deck.

The address is ``/calendar/<token>.ics``; the token is derived from the feed's random key
with the SECRET_KEY (``feed_token``), so it is not stored; regenerating replaces the key and
the old address answers 404 like any forged one.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch
from django.urls import reverse
from django.utils import translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _
from icalendar import Alarm, Calendar, Event, vDuration

from accounts.models import User
from games.models import Game, GameStatus, Seat
from keltis_site import public_site
from notifications.feed_models import CalendarFeed, new_key

SALT = "keltis.calendar"
#: the alarm before a deadline (the last email reminder comes 2 hours before, too)
ALARM_BEFORE = timedelta(hours=2)
#: how often a calendar should fetch the feed again (RFC 7986 REFRESH-INTERVAL)
REFRESH = timedelta(minutes=30)
PRODID = "-//Keltis by mail//Move deadlines//EN"


# -- the secret address -------------------------------------------------------------------------
def feed_token(feed: CalendarFeed) -> str:
    """The secret part of the feed's address: its id and an HMAC of its key."""
    digest = salted_hmac(SALT, f"{feed.pk}:{feed.key}", algorithm="sha256").hexdigest()
    return f"{feed.pk}-{digest[:40]}"


def feed_by_token(token: str) -> CalendarFeed | None:
    """The feed whose address carries ``token``; None for a forged or retired one."""
    pk, _sep, _digest = token.partition("-")
    if not pk.isdigit():
        return None
    feed = CalendarFeed.objects.select_related("user").filter(pk=int(pk)).first()
    if feed is None or not feed.user.is_active:
        return None
    return feed if constant_time_compare(feed_token(feed), token) else None


def feed_url(feed: CalendarFeed) -> str:
    return public_site.absolute(reverse("calendar_feed", args=[feed_token(feed)]))


def webcal_url(feed: CalendarFeed) -> str:
    """The same address as ``webcal://``: a click opens the calendar app's subscribe dialog."""
    return "webcal://" + feed_url(feed).split("://", 1)[1]


def feed_of(user: User) -> CalendarFeed | None:
    return CalendarFeed.objects.filter(user=user).first()


def feed_enable(user: User) -> CalendarFeed:
    """The player's feed, made now if they have none."""
    feed, _created = CalendarFeed.objects.get_or_create(user=user)
    return feed


def feed_regenerate(user: User) -> CalendarFeed:
    """A new address for the player's feed: the old one answers 404 from now on."""
    with transaction.atomic():
        feed, created = CalendarFeed.objects.select_for_update().get_or_create(user=user)
        if not created:
            feed.key = new_key()
            feed.save(update_fields=["key"])
    return feed


def feed_disable(user: User) -> None:
    """No calendar address at all: the last one answers 404."""
    CalendarFeed.objects.filter(user=user).delete()


# -- what the feed holds ------------------------------------------------------------------------
def moves_owed(user: User) -> list[tuple[Game, Seat]]:
    """The running games where ``user``'s seat is to move and has a deadline (not frozen)."""
    seats = (
        Seat.objects.filter(
            user=user,
            retired=False,
            game__status=GameStatus.RUNNING,
            game__frozen_at__isnull=True,
            game__deadline__isnull=False,
        )
        .select_related("game")
        .prefetch_related(Prefetch("game__seats", queryset=Seat.objects.select_related("user")))
        .order_by("game__deadline", "game_id")
    )
    return [(seat.game, seat) for seat in seats if seat.game.to_move == seat.index]


def _players(game: Game, user: User) -> list[str]:
    """The other players' public names, in seating order (a bot is named by its kind)."""
    seats = sorted(game.seats.all(), key=lambda seat: seat.index)
    return [seat.name for seat in seats if seat.user_id != user.pk]


def event_uid(game: Game, seat: Seat) -> str:
    return f"game-{game.pk}-seat-{seat.index}@{public_site.domain()}"


def _event(game: Game, seat: Seat, user: User) -> Event:
    title = _("%(game)s #%(id)s") % {"game": game.get_kind_display(), "id": game.pk}
    summary = _("Your move: %(title)s") % {"title": title}
    url = public_site.absolute(reverse("game_detail", args=[game.pk]))
    others = ", ".join(_players(game, user))
    description = "\n".join(
        [
            _("The deadline of your move in %(title)s.") % {"title": title},
            _("Playing with: %(players)s") % {"players": others},
            url,
        ]
    )
    revised = game.turn_started_at or game.started_at or game.created_at
    if game.deadline_moved_at is not None and game.deadline_moved_at > revised:
        revised = game.deadline_moved_at
    event = Event()
    event.add("uid", event_uid(game, seat))
    event.add("dtstamp", revised)
    event.add("last-modified", revised)
    event.add("sequence", game.turn_seq + game.deadline_moves)
    # a deadline is a moment: DTSTART without DTEND is an event of no duration (RFC 5545 3.6.1)
    event.add("dtstart", game.deadline)
    event.add("summary", summary)
    event.add("description", description)
    event.add("url", url)
    event.add("transp", "TRANSPARENT")  # a deadline does not make the player busy
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", summary)
    alarm.add("trigger", -ALARM_BEFORE)
    event.add_component(alarm)
    return event


def feed_ics(user: User) -> bytes:
    """The player's feed, in their language: one event per move they owe."""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        calendar = Calendar()
        calendar.add("prodid", PRODID)
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        name = _("%(site)s: my moves") % {"site": public_site.name()}
        calendar.add("name", name)  # RFC 7986
        calendar.add("x-wr-calname", name)  # the same for calendars that predate it
        calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
        calendar.add("x-published-ttl", vDuration(REFRESH))
        for game, seat in moves_owed(user):
            calendar.add_component(_event(game, seat, user))
        return calendar.to_ical()


def feed_etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
