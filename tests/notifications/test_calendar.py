"""The calendar channel: a player's secret ICS feed of the moves they owe, read with icalendar."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from accounts.models import User
from games.integrity import game_freeze
from games.models import Seat
from notifications.channels import calendar
from notifications.models import CalendarFeed

from .conftest import HAND_0, HAND_1, SITE, Table, play_turn

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def feed_path(user: User) -> str:
    return calendar.feed_url(calendar.feed_enable(user)).removeprefix(SITE)


def events(body: bytes) -> dict[str, Any]:
    """The feed's events by UID (parsing fails on anything that is not iCalendar)."""
    parsed = Calendar.from_ical(body)
    assert parsed["VERSION"] == "2.0"
    return {str(event["UID"]): event for event in parsed.walk("VEVENT")}


def fetch(path: str) -> dict[str, Any]:
    response = Client().get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return events(response.content)


def second(moment: datetime | None) -> datetime:
    """iCalendar times are whole seconds (the feed rounds a deadline down, never later)."""
    assert moment is not None
    return moment.replace(microsecond=0)


def uid(table: Table, seat: int) -> str:
    return f"game-{table.game.pk}-seat-{seat}@keltis.example"


def test_my_move_is_an_event_at_its_deadline_with_an_alarm_and_a_link(
    table: Callable[..., Table],
) -> None:
    t = table()
    game = t.refresh()
    feed = fetch(feed_path(t.users[0]))
    assert list(feed) == [uid(t, 0)]
    event = feed[uid(t, 0)]
    assert event.decoded("DTSTART") == second(game.deadline)
    assert "DTEND" not in event  # a deadline is a moment
    assert str(event["SUMMARY"]) == f"Your move: Keltis #{game.pk}"
    assert str(event["URL"]) == f"{SITE}/games/{game.pk}/"
    assert t.users[1].public_name in str(event["DESCRIPTION"])
    [alarm] = event.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -timedelta(hours=2)
    assert str(alarm["ACTION"]) == "DISPLAY"
    body = Client().get(feed_path(t.users[0])).content
    assert b"\r\nX-PUBLISHED-TTL:PT30M\r\n" in body
    assert b"\r\nREFRESH-INTERVAL;VALUE=DURATION:PT30M\r\n" in body


def test_uid_stays_while_the_deadline_moves_with_the_turns(table: Callable[..., Table]) -> None:
    with time_machine.travel(START, tick=False) as clock:
        t = table()
        anna_path, bela_path = feed_path(t.users[0]), feed_path(t.users[1])
        first = fetch(anna_path)[uid(t, 0)]
        assert fetch(bela_path) == {}  # Bela owes no move yet

        clock.shift(timedelta(hours=5))
        play_turn(t)
        assert fetch(anna_path) == {}  # Anna's move is made: nothing owed
        bela_event = fetch(bela_path)[uid(t, 1)]
        assert bela_event.decoded("DTSTART") == second(t.refresh().deadline)

        clock.shift(timedelta(hours=7))
        play_turn(t, seed=2)
        game = t.refresh()
        again = fetch(anna_path)[uid(t, 0)]

    assert again.decoded("DTSTART") == second(game.deadline)
    assert again.decoded("DTSTART") > first.decoded("DTSTART")
    assert int(again["SEQUENCE"]) > int(first["SEQUENCE"])
    assert again.decoded("LAST-MODIFIED") == START + timedelta(hours=12)
    assert again.decoded("DTSTAMP") > first.decoded("DTSTAMP")


def test_a_vacation_that_moves_the_deadline_is_a_newer_revision(
    table: Callable[..., Table],
) -> None:
    """Inside one turn, a vacation moves the deadline: the event keeps its UID, and its
    SEQUENCE and LAST-MODIFIED move on with DTSTART, so a calendar takes the new time."""
    from accounts.models import Vacation
    from games import timeouts

    with time_machine.travel(START, tick=False) as clock:
        t = table()
        path = feed_path(t.users[0])
        before = fetch(path)[uid(t, 0)]
        clock.shift(timedelta(hours=3))
        Vacation.objects.create(
            user=t.users[0], starts_at=START + timedelta(hours=4), ends_at=START + timedelta(days=2)
        )
        assert timeouts.deadlines_refresh(t.users[0].pk) == 1
        game = t.refresh()
        after = fetch(path)[uid(t, 0)]

    assert game.deadline_moves == 1
    assert after.decoded("DTSTART") == second(game.deadline) > before.decoded("DTSTART")
    assert int(after["SEQUENCE"]) == int(before["SEQUENCE"]) + 1
    assert after.decoded("LAST-MODIFIED") == START + timedelta(hours=3)
    assert after.decoded("DTSTAMP") > before.decoded("DTSTAMP")


def test_summary_in_the_players_language(table: Callable[..., Table]) -> None:
    t = table(language="hu")
    game = t.refresh()
    [event] = fetch(feed_path(t.users[0])).values()
    assert str(event["SUMMARY"]) == f"Te következel: Keltis #{game.pk}"


def test_a_feed_shows_no_card_and_no_other_players_game(
    table: Callable[..., Table], make_user: Callable[..., User]
) -> None:
    t = table()
    stranger = make_user("carla")
    body = Client().get(feed_path(t.users[0])).content.decode()
    unfolded = body.replace("\r\n ", "")
    for card in HAND_0 + HAND_1:
        assert not re.search(rf"\b{card}\b", unfolded), card
    assert fetch(feed_path(stranger)) == {}
    assert fetch(feed_path(t.users[1])) == {}


def test_games_that_are_frozen_or_over_are_not_listed(table: Callable[..., Table]) -> None:
    t = table()
    path = feed_path(t.users[0])
    game_freeze(game_id=t.game.pk, reason="test")
    assert fetch(path) == {}


def test_a_new_address_retires_the_old_one(table: Callable[..., Table]) -> None:
    t = table()
    old = feed_path(t.users[0])
    client = Client()
    client.force_login(t.users[0])
    assert client.post(reverse("calendar_new_address")).status_code == 302
    new = feed_path(t.users[0])
    assert new != old
    assert Client().get(old).status_code == 404
    assert Client().get(new).status_code == 200
    client.post(reverse("calendar_remove"))
    assert Client().get(new).status_code == 404
    assert not CalendarFeed.objects.filter(user=t.users[0]).exists()


@pytest.mark.parametrize("forge", ["swap_digest", "other_id", "garbage", "no_id"])
def test_a_forged_address_is_404(
    table: Callable[..., Table], make_user: Callable[..., User], forge: str
) -> None:
    t = table()
    feed = calendar.feed_enable(t.users[0])
    other = calendar.feed_enable(make_user())
    token = calendar.feed_token(feed)
    forged = {
        "swap_digest": f"{feed.pk}-{'0' * 40}",
        "other_id": f"{other.pk}-{token.partition('-')[2]}",
        "garbage": "x" * 20,
        "no_id": token.partition("-")[2],
    }[forge]
    response = Client().get(reverse("calendar_feed", args=[forged]))
    assert response.status_code == 404


def test_a_get_changes_nothing_and_answers_conditional_requests(
    table: Callable[..., Table],
) -> None:
    t = table()
    path = feed_path(t.users[0])
    key = CalendarFeed.objects.get(user=t.users[0]).key
    first = Client().get(path)
    assert "private" in first["Cache-Control"] and "max-age=300" in first["Cache-Control"]
    assert first["X-Robots-Tag"] == "noindex"
    again = Client().get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert CalendarFeed.objects.get(user=t.users[0]).key == key
    client = Client()
    client.force_login(t.users[0])
    assert client.get(reverse("calendar_new_address")).status_code == 405
    assert CalendarFeed.objects.get(user=t.users[0]).key == key


def test_the_settings_page_shows_the_address_only_to_its_player(
    table: Callable[..., Table],
) -> None:
    t = table()
    path = feed_path(t.users[0])
    anna, bela = Client(), Client()
    anna.force_login(t.users[0])
    bela.force_login(t.users[1])
    assert path in anna.get(reverse("feeds_settings")).content.decode()
    assert path not in bela.get(reverse("feeds_settings")).content.decode()
    assert Client().get(reverse("feeds_settings")).status_code == 302  # to the login


def test_the_deadline_in_the_feed_is_the_games_stored_one(table: Callable[..., Table]) -> None:
    """A vacation that moves the deadline inside a turn moves the event too."""
    t = table()
    game = t.refresh()
    later = game.deadline + timedelta(days=2)
    type(game).objects.filter(pk=game.pk).update(deadline=later)
    [event] = fetch(feed_path(t.users[0])).values()
    assert event.decoded("DTSTART") == second(later)
    assert event.decoded("DTSTAMP") <= timezone.now()


def test_head_is_answered_and_the_page_offers_a_webcal_link(table: Callable[..., Table]) -> None:
    t = table()
    path = feed_path(t.users[0])
    assert Client().head(path).status_code == 200
    client = Client()
    client.force_login(t.users[0])
    page = client.get(reverse("feeds_settings")).content.decode()
    assert f'href="webcal://keltis.example{path}"' in page


def test_the_feed_reads_a_fixed_number_of_queries_whatever_the_games(
    table: Callable[..., Table], django_assert_max_num_queries: Any
) -> None:
    t = table()
    anna = t.users[0]
    for _ in range(3):  # three more games where Anna is to move
        other = table()
        Seat.objects.filter(game=other.game, index=0).update(user=anna)
    assert len(calendar.moves_owed(anna)) == 4
    with django_assert_max_num_queries(4):
        body = calendar.feed_ics(anna)
    assert len(events(body)) == 4
