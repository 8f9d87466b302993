"""The other players see who is on vacation, and until when, in their own time zone."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.urls import reverse
from django.utils import dateformat, formats

from accounts.models import Vacation
from games.models import Game
from games.services import game_create, game_join

pytestmark = pytest.mark.django_db

START = datetime(2030, 3, 4, 9, 0, tzinfo=UTC)


def duel(make_user: Any) -> tuple[Game, Any, Any]:
    anna = make_user(time_zone="Europe/Warsaw")
    bela = make_user(time_zone="America/New_York")
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind="keltis", player_count=2, days_per_move=3)
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    assert game.to_move == 0  # Anna's turn
    return game, anna, bela


def local_text(moment: datetime, zone: str) -> str:
    """The moment as the page writes it for a reader in ``zone``."""
    local = moment.astimezone(zoneinfo.ZoneInfo(zone))
    return dateformat.format(local, formats.get_format("DATETIME_FORMAT"))


def page(client: Any, user: Any, game: Game, at: datetime) -> str:
    with time_machine.travel(at, tick=False):
        client.force_login(user)  # a session of that day (one from today has expired then)
        return client.get(reverse("game_detail", args=[game.pk])).content.decode()


def test_the_table_says_who_is_on_vacation_until_when_in_the_readers_zone(
    client: Any, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    first_end = START + timedelta(days=2)
    Vacation.objects.create(user=anna, starts_at=START + timedelta(hours=1), ends_at=first_end)
    back = first_end + timedelta(days=3)
    # a second vacation right after the first: she is away until its end
    Vacation.objects.create(user=anna, starts_at=first_end, ends_at=back)
    html = page(client, bela, game, START + timedelta(days=1))
    until = local_text(back, "America/New_York")
    assert f"on vacation until {until} (America/New_York)" in html
    assert f"is on vacation until {until}: their clock stops meanwhile." in html
    assert local_text(back, "Europe/Warsaw") != until  # the reader's zone, not Anna's
    # Anna herself reads it in her zone
    mine = page(client, anna, game, START + timedelta(days=1))
    assert f"You are on vacation until {local_text(back, 'Europe/Warsaw')}" in mine


def test_no_vacation_note_before_a_vacation_begins_or_after_it_ends(
    client: Any, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    Vacation.objects.create(
        user=anna, starts_at=START + timedelta(days=1), ends_at=START + timedelta(days=2)
    )
    assert "on vacation until" not in page(client, bela, game, START + timedelta(hours=2))
    assert "on vacation until" in page(client, bela, game, START + timedelta(days=1, hours=1))
    assert "on vacation until" not in page(client, bela, game, START + timedelta(days=2, hours=1))


def test_a_page_without_vacations_reads_none(
    client: Any, make_user: Any, django_assert_num_queries: Any
) -> None:
    """Nobody at the table has a vacation ahead: the page asks nothing more of the database."""
    from games.selectors import GameReads, seats_away

    game, _, _ = duel(make_user)
    rows = GameReads().seat_rows(game)
    with django_assert_num_queries(0):
        assert seats_away(rows, START) == {}
