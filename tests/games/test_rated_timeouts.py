"""A game that ends on an absent player's timeouts is unrated: the create page says the rule,
the game page says it may happen while the game runs, and says "Unrated" once it has."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any

import pytest
import time_machine
from django.urls import reverse

from games import timeouts
from games.models import Game, GameStatus
from games.rated import rated_status, rule_text
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db

START = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)
PROVISO = (
    "It stays unrated if fewer than two people make a move of their own: turns played for an "
    "absent player when their time runs out do not count."
)
UNRATED = "Unrated: fewer than two people made a move of their own."


def note(client: Any, user: Any, game: Game, at: datetime) -> str:
    with time_machine.travel(at, tick=False):
        client.force_login(user)
        html = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    found = re.search(r'<p class="rated-note[^"]*">(.*?)</p>', html, re.S)
    assert found is not None
    # the proviso of a game still played: below the table (the hand and moves come first)
    proviso = re.search(r'<p class="rated-proviso[^"]*">(.*?)</p>', html, re.S)
    return unescape(found.group(1) + (f" {proviso.group(1)}" if proviso else ""))


def play_turn(game: Game, user: Any) -> None:
    seat = game.to_move
    while True:
        game.refresh_from_db()
        if game.to_move != seat or game.status != GameStatus.RUNNING:
            return
        action = engine_state(game).legal()[0]
        action_submit(game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=user)


def test_the_rule_names_the_timeouts_of_an_absent_player() -> None:
    assert "a game that ends on the timeouts of a player who never moved is unrated" in (
        rule_text()
    )
    assert rated_status(people=2, bots=0).proviso == PROVISO  # still to be played
    assert rated_status(people=2, bots=0, movers=2).proviso == ""  # over: it is known
    assert rated_status(people=1, bots=1).proviso == ""  # unrated anyway


def test_the_create_page_says_it(client: Any, make_user: Any) -> None:
    client.force_login(make_user())
    html = unescape(client.get(reverse("game_create")).content.decode())
    assert "is not a move of their own: a game that ends on the timeouts" in html


def test_a_game_ending_on_an_absent_players_timeouts_is_shown_unrated(
    client: Any, make_user: Any
) -> None:
    anna, bela = make_user(), make_user()
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind="keltis", player_count=2, days_per_move=1)
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    assert game.rated and game.to_move == 0
    running = note(client, anna, game, START + timedelta(hours=1))
    assert running == f"Rated: a game of 2 people, rated against each other. {PROVISO}"
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        play_turn(game, anna)  # Anna moves; Bela never comes
    outcomes = []
    while game.status == GameStatus.RUNNING:
        with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
            outcomes.append(timeouts.timeout_apply(game_id=game.pk))
            game.refresh_from_db()
            if game.status == GameStatus.RUNNING and game.to_move == 0:
                play_turn(game, anna)
        game.refresh_from_db()
    assert outcomes == ["played", "played", "ended"]  # a 2-player game ends on the third
    assert note(client, anna, game, game.finished_at + timedelta(minutes=1)) == UNRATED
