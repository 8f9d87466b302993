"""A member who leaves a league and rejoins waits for people afresh before a bot table."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from accounts.models import User
from games.models import Game
from tournaments import leagues
from tournaments.models import LeagueMember

pytestmark = pytest.mark.django_db

START = datetime(2031, 3, 3, 9, 0, tzinfo=UTC)


def test_a_rejoin_starts_a_fresh_wait_for_people(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.LEAGUE_BOT_WAIT_MINUTES = 60
    league = leagues.league_create(
        name="Thin", kind="keltis-cards", min_players=2, max_players=2, bot_level="normal",
        now=START,
    )  # fmt: skip
    anna = make_user()
    with time_machine.travel(START, tick=False):
        leagues.league_join(league_id=league.pk, user=anna, max_games=1)
    with time_machine.travel(START + timedelta(minutes=10), tick=False):
        leagues.league_leave(league_id=league.pk, user=anna)
    rejoined = START + timedelta(days=2)
    with time_machine.travel(rejoined, tick=False):
        leagues.league_join(league_id=league.pk, user=anna, max_games=1)
    assert LeagueMember.objects.get(user=anna).joined_at == rejoined
    # two days after her first join, but only minutes after the rejoin: no bots yet
    assert leagues.matchmaker_pass(now=rejoined + timedelta(minutes=5)) == 0
    assert not Game.objects.filter(season_link__season__league=league).exists()
    assert leagues.matchmaker_pass(now=rejoined + timedelta(minutes=61)) == 1
    game = Game.objects.get(season_link__season__league=league)
    assert set(game.seats.values_list("user_id", "bot")) == {(anna.pk, ""), (None, "normal")}
