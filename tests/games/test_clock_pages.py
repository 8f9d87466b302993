"""Clocks on the pages: the player's time zone, the time bank on the create form, deadlines and
time left on the game page, my games and the lobby, and how moves not made by their player are
marked. Times are fixed with time-machine; games are made through ``games.services``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import listings, presenters, timeouts
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday; Budapest is UTC+1 in March
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def text(response: Any) -> str:
    """The page with Django's non-breaking spaces (timesince, timeuntil) made plain."""
    return response.content.decode().replace("\xa0", " ")


def duel(make_user: Any, *, anna: Any = None, bela: Any = None, **create: Any) -> Game:
    """A running two-player game started at START: anna (seat 0) to move."""
    anna = anna or make_user("anna", display_name="Anna")
    bela = bela or make_user("bela", display_name="Bela")
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind="keltis", player_count=2, **create)
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game


def play_turn(game: Game, user: Any) -> None:
    """The seat to move plays its whole turn (play, clover, draw) through the service."""
    game.refresh_from_db()
    seat = game.to_move
    while game.status == GameStatus.RUNNING and game.to_move == seat:
        action = engine_state(game).legal()[0]
        action_submit(game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=user)
        game.refresh_from_db()


def create_data(**overrides: Any) -> dict[str, Any]:
    data = {"kind": "keltis", "player_count": "2", "days_per_move": "3"}
    data.update(overrides)
    return data


# -- 1. the player's time zone --------------------------------------------------------------------
def test_a_player_in_budapest_sees_the_deadline_in_budapest_time(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna", display_name="Anna", time_zone="Europe/Budapest")
    game = duel(make_user, anna=anna, days_per_move=3)
    assert game.deadline == START + timedelta(days=3)  # stored in UTC: 09:00

    client.force_login(anna)
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        page = text(client.get(reverse("game_detail", args=[game.pk])))

    assert 'datetime="2026-03-05T10:00:00+01:00"' in page
    assert "March 5, 2026, 10 a.m." in page
    assert "(Europe/Budapest)" in page
    assert "Your deadline:" in page


def test_utc_players_and_anonymous_visitors_see_utc(client: Client, make_user: Any) -> None:
    game = duel(make_user, days_per_move=3)
    bela = Seat.objects.get(game=game, index=1).user
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        anonymous = text(client.get(reverse("game_detail", args=[game.pk])))
        client.force_login(bela)
        seated = text(client.get(reverse("game_detail", args=[game.pk])))
    for page in (anonymous, seated):
        assert 'datetime="2026-03-05T09:00:00+00:00"' in page
        assert "March 5, 2026, 9 a.m." in page and "(UTC)" in page
    assert "Anna's deadline:" in seated


def test_the_time_zone_is_only_active_for_the_request(client: Client, make_user: Any) -> None:
    tokyo = make_user(time_zone="Asia/Tokyo")
    client.force_login(tokyo)
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    assert timezone.get_current_timezone_name() == "UTC"


def test_an_unknown_stored_time_zone_falls_back_to_utc(client: Client, make_user: Any) -> None:
    odd = make_user()
    type(odd).objects.filter(pk=odd.pk).update(time_zone="Mars/Olympus_Mons")
    odd.refresh_from_db()
    game = duel(make_user, anna=odd)
    client.force_login(odd)
    with time_machine.travel(START, tick=False):
        page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert 'datetime="2026-03-05T09:00:00+00:00"' in page


# -- 2. the time bank on the create form ----------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "bank"),
    [
        ({}, (0, 0)),
        ({"time_bank": "none"}, (0, 0)),
        ({"time_bank": "6-24"}, (6, 24)),
        ({"time_bank": "12-48"}, (12, 48)),
        ({"time_bank": "24-120"}, (24, 120)),
        (
            {"time_bank": "custom", "bank_increment_hours": "8", "bank_cap_hours": "30"},
            (8, 30),
        ),
        (
            {"time_bank": "custom", "bank_increment_hours": "72", "bank_cap_hours": "72"},
            (72, 72),
        ),
    ],
)
def test_a_game_created_with_a_time_bank_stores_it(
    client: Client, make_user: Any, data: dict[str, str], bank: tuple[int, int]
) -> None:
    client.force_login(make_user())
    response = client.post(reverse("game_create"), create_data(**data))
    assert response.status_code == 302
    game = Game.objects.get()
    assert (game.bank_increment_hours, game.bank_cap_hours) == bank


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"time_bank": "custom", "bank_increment_hours": "24", "bank_cap_hours": "12"},
         "bank_cap_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "12"}, "bank_cap_hours"),
        ({"time_bank": "custom", "bank_cap_hours": "12"}, "bank_increment_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "0", "bank_cap_hours": "12"},
         "bank_increment_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "-5", "bank_cap_hours": "12"},
         "bank_increment_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "73", "bank_cap_hours": "100"},
         "bank_increment_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "12", "bank_cap_hours": "337"},
         "bank_cap_hours"),
        ({"time_bank": "custom", "bank_increment_hours": "a day", "bank_cap_hours": "48"},
         "bank_increment_hours"),
        ({"time_bank": "12-48", "bank_increment_hours": "6"}, "bank_increment_hours"),
        ({"time_bank": "none", "bank_cap_hours": "48"}, "bank_cap_hours"),
        ({"time_bank": "99-999"}, "time_bank"),
    ],
)  # fmt: skip
def test_invalid_time_bank_input_creates_nothing(
    client: Client, make_user: Any, data: dict[str, str], field: str
) -> None:
    client.force_login(make_user())
    response = client.post(reverse("game_create"), create_data(**data))
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert 'class="errorlist' in response.content.decode()
    assert not Game.objects.exists()


def test_create_page_offers_the_time_bank(client: Client, make_user: Any) -> None:
    client.force_login(make_user())
    page = client.get(reverse("game_create")).content.decode()
    assert page.count('name="time_bank"') == 5
    assert 'value="none"' in page and "checked" in page
    assert "+12 hours per move, up to 2 days" in page
    assert "+1 day per move, up to 5 days" in page
    assert 'name="bank_increment_hours"' in page and 'name="bank_cap_hours"' in page


# -- 3. the game page -----------------------------------------------------------------------------
def test_game_page_shows_whose_turn_until_when_and_the_time_control(
    client: Client, make_user: Any
) -> None:
    game = duel(make_user, days_per_move=3, bank_increment_hours=12, bank_cap_hours=48)
    client.force_login(game.seats.get(index=0).user)
    with time_machine.travel(START + timedelta(minutes=50), tick=False):
        page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert "Your deadline:" in page
    assert "2 days, 23 hours left" in page
    assert "3 days per move, time bank: +12 hours per move, up to 2 days." in page
    assert "Timeouts in a row" in page and "Time bank" in page
    assert "from your time bank" not in page  # the bank is empty before the first move


def test_the_time_bank_grows_and_is_part_of_the_deadline(client: Client, make_user: Any) -> None:
    game = duel(make_user, days_per_move=1, bank_increment_hours=12, bank_cap_hours=48)
    anna, bela = (s.user for s in game.seats.order_by("index"))
    with time_machine.travel(START + timedelta(hours=2), tick=False):
        play_turn(game, anna)  # anna's bank: +12 hours
    with time_machine.travel(START + timedelta(hours=3), tick=False):
        play_turn(game, bela)  # anna's turn again at 12:00 UTC: 1 day + 12 hours
        game.refresh_from_db()
        assert game.deadline == START + timedelta(hours=3) + timedelta(days=1, hours=12)
        client.force_login(anna)
        mine = text(client.get(reverse("game_detail", args=[game.pk])))
        client.force_login(bela)
        theirs = text(client.get(reverse("game_detail", args=[game.pk])))
    assert "1 day, 12 hours left" in mine
    assert "It includes 12 hours from your time bank." in mine
    assert "It includes 12 hours from Anna's time bank." in theirs
    # each seat's bank in the clock table
    rows = dict(re.findall(r'data-seat="(\d)">.*?<td>([^<]*)</td>', mine, re.S))
    assert rows == {"0": "12 hours", "1": "12 hours"}


def test_game_page_without_a_bank_says_so(client: Client, make_user: Any) -> None:
    game = duel(make_user, days_per_move=5)
    with time_machine.travel(START, tick=False):
        page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert "5 days per move, no time bank." in page
    assert "5 days left" in page
    assert "<th scope=\"col\">Time bank</th>" not in page


def test_timeouts_in_a_row_and_the_timed_out_turn_are_shown(
    client: Client, make_user: Any
) -> None:
    game = duel(make_user, days_per_move=1)
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        assert timeouts.timeout_apply(game_id=game.pk) == "played"
    timed_out = list(Event.objects.filter(game=game).values_list("source", flat=True))
    assert timed_out and set(timed_out) == {EventSource.TIMEOUT}
    with time_machine.travel(game.deadline + timedelta(hours=1), tick=False):
        page = text(client.get(reverse("game_detail", args=[game.pk])))
        history = text(client.get(reverse("game_history", args=[game.pk])))
    assert page.count("(timed out: played by the bot)") == len(timed_out)
    assert history.count("(timed out: played by the bot)") >= len(timed_out)
    timeouts_column = dict(
        re.findall(r'data-seat="(\d)">.*?<td class="num">([^<]*)</td>', page, re.S)
    )
    assert timeouts_column == {"0": "1", "1": "0"}


def test_a_retired_seat_has_a_badge_and_its_moves_are_marked(
    client: Client, make_user: Any
) -> None:
    anna, bela, cili = (make_user(n, display_name=n.title()) for n in ("anna", "bela", "cili"))
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind="keltis", player_count=3)
        game_join(game_id=game.pk, user=bela)
        game_join(game_id=game.pk, user=cili)
    game.refresh_from_db()
    Seat.objects.filter(game=game, index=0).update(timeouts=3, retired=True)
    # a retired seat's turn is played for it, marked as such
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        action = engine_state(game).legal()[0]
        action_submit(
            game_id=game.pk, seat=0, action=action, expected_seq=0, source=EventSource.RETIRED
        )
        page = text(client.get(reverse("game_detail", args=[game.pk])))
        history = text(client.get(reverse("game_history", args=[game.pk])))
    assert 'class="badge badge--retired"' in page
    assert "retired after 3 timeouts: plays automatically, ranks last" in page
    assert "(retired seat)" in page and "(retired seat)" in history


def test_bot_moves_are_marked(
    client: Client, make_user: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game, anna)
    game.refresh_from_db()
    assert game.to_move == 0  # the bot has played its turn
    recent = list(Event.objects.filter(game=game).order_by("-seq")[:8])
    bot_moves = sum(1 for e in recent if e.source == EventSource.BOT)
    assert bot_moves >= 1
    page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert page.count('<span class="event-source event-source--bot">(bot)</span>') == bot_moves
    assert "event-source--player" not in page  # the player's own moves carry no mark


def test_the_email_preferences_link_is_for_logged_in_players(
    client: Client, make_user: Any
) -> None:
    game = duel(make_user)
    url = reverse("email_preferences")
    assert url not in client.get(reverse("game_detail", args=[game.pk])).content.decode()
    client.force_login(game.seats.get(index=1).user)
    page = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert f'href="{url}"' in page and "How you hear about your turns" in page


def test_a_finished_game_has_no_deadline_line(client: Client, make_user: Any) -> None:
    game = duel(make_user)
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.FINISHED, to_move=None, deadline=None, finished_at=START
    )
    page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert "deadline:" not in page and 'class="deadline' not in page
    assert "3 days per move, no time bank." in page  # the time control stays on the page


def test_a_retired_seat_to_move_has_no_deadline(client: Client, make_user: Any) -> None:
    from games import selectors

    game = duel(make_user)
    Seat.objects.filter(game=game, index=0).update(retired=True, timeouts=3)
    Game.objects.filter(pk=game.pk).update(deadline=None)
    game.refresh_from_db()
    page = selectors.game_page(game=game, user=None)
    clock = presenters.clock_info(page, START)
    assert clock.to_move is not None and clock.to_move.index == 0
    assert clock.deadline is None and clock.time_left == ""
    assert clock.seats[0].retired_note.startswith("retired after 3 timeouts")
    page = text(client.get(reverse("game_detail", args=[game.pk])))
    assert "Anna plays automatically: no deadline." in page


# -- 4. my games ----------------------------------------------------------------------------------
def test_my_games_shows_deadlines_and_sorts_my_turns_by_time_left(
    client: Client, make_user: Any
) -> None:
    me = make_user("me", time_zone="Europe/Budapest")
    other = make_user("other", display_name="Olga")
    games = []
    for _ in range(4):
        with time_machine.travel(START, tick=False):
            game = game_create(creator=me, kind="keltis", player_count=2)
            game_join(game_id=game.pk, user=other)
        games.append(game)
    # my turn in games 0-2 with known deadlines (game 2 has none), Olga's turn in game 3
    Game.objects.filter(pk=games[0].pk).update(deadline=START + timedelta(days=2))
    Game.objects.filter(pk=games[1].pk).update(deadline=START + timedelta(hours=5))
    Game.objects.filter(pk=games[2].pk).update(deadline=None)
    Game.objects.filter(pk=games[3].pk).update(to_move=1, deadline=START + timedelta(hours=1))

    with CaptureQueriesContext(connection) as queries:
        [rows] = listings.game_lists(user=me, statuses=[GameStatus.RUNNING])
    assert len(queries) == 2  # the order is the query's
    assert [r.game.pk for r in rows] == [games[1].pk, games[0].pk, games[2].pk, games[3].pk]

    client.force_login(me)
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        response = client.get(reverse("my_games"))
    page = text(response)
    rows = response.context["running_games"]
    left = [r.time_left.replace("\xa0", " ") for r in rows]
    assert left[:3] == ["4 hours left", "1 day, 23 hours left", ""]
    assert "Your deadline:" in page and "Olga's deadline:" in page
    assert 'datetime="2026-03-02T15:00:00+01:00"' in page  # games[1], in Budapest time
    assert "time is up" in page  # Olga's deadline is now
    assert "Times in Europe/Budapest." in page
    assert "No deadline." in page  # games[2]
    assert page.index(f'href="/games/{games[1].pk}/"') < page.index(f'href="/games/{games[0].pk}/"')


# -- 5. the lobby ---------------------------------------------------------------------------------
def test_lobby_shows_each_open_games_time_control(client: Client, make_user: Any) -> None:
    game_create(
        creator=make_user(), kind="keltis", player_count=3, days_per_move=2,
        bank_increment_hours=24, bank_cap_hours=120,
    )
    game_create(creator=make_user(), kind="keltis-cards", player_count=2, days_per_move=7)
    game_create(
        creator=make_user(), kind="keltis", player_count=2, days_per_move=1,
        bank_increment_hours=6, bank_cap_hours=36,
    )
    page = text(client.get(reverse("lobby")))
    assert "2 days per move, time bank: +1 day per move, up to 5 days" in page
    assert "7 days per move, no time bank" in page
    assert "1 day per move, time bank: +6 hours per move, up to 1 day, 12 hours" in page


# -- words ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "0 minutes"),
        (59, "0 minutes"),
        (60, "1 minute"),
        (3600, "1 hour"),
        (12 * 3600, "12 hours"),
        (36 * 3600 + 20 * 60, "1 day, 12 hours"),
        (5 * 3600 + 20 * 60, "5 hours, 20 minutes"),
        (2 * 86400, "2 days"),
    ],
)
def test_duration_text(seconds: int, words: str) -> None:
    assert listings.duration_text(seconds) == words


def test_time_left_text() -> None:
    assert listings.time_left_text(None, START) == ""
    left = listings.time_left_text(START + timedelta(days=2, hours=3, minutes=5), START)
    assert left.replace("\xa0", " ") == "2 days, 3 hours left"
    assert listings.time_left_text(START, START).startswith("time is up")


@pytest.mark.parametrize("name", ["games/_clock.html", "games/game.html", "games/history.html"])
def test_clock_templates_have_no_inline_script_or_style(name: str) -> None:
    body = (TEMPLATES / name).read_text()
    # a script runs only from a file; a JSON data block (the history's record) never runs
    assert not re.search(r"<script(?![^>]*\b(?:src=|type=\"application/json\"))", body)
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", body)
