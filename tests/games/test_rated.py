"""Whether a game is rated, and why: games.rated, as the create form and the game page say it."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from games.forms import GameCreateForm
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.rated import rated_status
from games.services import game_create, game_join

TWO_AND_A_BOT = "Rated: the 2 people at the table are rated against each other; bots are not rated."
ALONE = "Unrated: only one person at the table (bots are not rated)."
TWO = "Rated: a game of 2 people, rated against each other."


# -- the rule -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("table", "rated", "reason"),
    [
        ({"people": 2, "bots": 0}, True, TWO),
        ({"people": 4, "bots": 0}, True, "Rated: a game of 4 people, rated against each other."),
        ({"people": 2, "bots": 1}, True, TWO_AND_A_BOT),
        (
            {"people": 3, "bots": 1},
            True,
            "Rated: the 3 people at the table are rated against each other; bots are not rated.",
        ),
        ({"people": 1, "bots": 1}, False, ALONE),
        ({"people": 1, "bots": 3}, False, ALONE),
        (
            {"people": 2, "bots": 0, "marked_rated": False},
            False,
            "Unrated: this game was created as an unrated game.",
        ),
        (
            {"people": 2, "bots": 1, "movers": 1},
            False,
            "Unrated: fewer than two people made a move of their own.",
        ),
        ({"people": 3, "bots": 1, "movers": 2}, True, None),
    ],
)
def test_the_rule_says_rated_or_not_and_why(
    table: dict[str, Any], rated: bool, reason: str | None
) -> None:
    status = rated_status(**table)
    assert status.rated is rated
    if reason is not None:
        assert status.reason == reason


@pytest.mark.parametrize("language", ["hu", "pl", "cs", "sk", "ru", "de"])
def test_the_reasons_are_in_the_players_language(language: str) -> None:
    with translation.override(language):
        rated = rated_status(people=3, bots=1).reason
        alone = rated_status(people=1, bots=2).reason
    assert rated != rated_status(people=3, bots=1).reason and "3" in rated
    assert alone != ALONE


@pytest.mark.django_db
def test_a_new_game_is_rated_by_the_rule(make_user: Any) -> None:
    anna = make_user()
    assert game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"]).rated
    assert game_create(creator=anna, kind="keltis", player_count=4, bots=["random"] * 2).rated
    assert not game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"]).rated
    assert not game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"] * 2).rated
    assert game_create(creator=anna, kind="keltis", player_count=2).rated
    assert not game_create(creator=anna, kind="keltis", player_count=2, rated=False).rated


# -- the create form ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({}, TWO),
        ({"player_count": "3", "seat_1": "normal"}, TWO_AND_A_BOT),
        ({"player_count": "2", "seat_1": "easy"}, ALONE),
        # a bot on a seat the table does not have is an error, not a bot at the table
        ({"player_count": "2", "seat_2": "strong"}, TWO),
        ({"player_count": "9", "seat_1": "easy"}, ALONE),
    ],
)
def test_the_form_says_whether_its_game_is_rated(data: dict[str, str], reason: str) -> None:
    form = GameCreateForm({"kind": "keltis", **data} if data else None)
    assert form.rated_preview().reason == reason


def test_the_form_knows_the_reason_of_every_table_it_can_make() -> None:
    reasons = GameCreateForm().rated_by_table()
    assert set(reasons) == {"2-0", "2-1", "3-0", "3-1", "3-2", "4-0", "4-1", "4-2", "4-3"}
    assert reasons["3-1"] == TWO_AND_A_BOT
    assert reasons["4-3"] == ALONE


@pytest.mark.django_db
def test_the_create_page_shows_the_rule_and_the_reason(client: Any, make_user: Any) -> None:
    client.force_login(make_user())
    html = client.get(reverse("game_create")).content.decode()
    note = re.search(r'<p class="rated-note" id="rated-note"[^>]*>(.*?)</p>', html, re.S)
    assert note is not None and unescape(note.group(1)) == f"<strong>{TWO}</strong>"
    assert "A game is rated when at least two people play it." in html
    # the page's script picks the reason for the seats chosen from this data, not inline code
    data = re.search(r'<script id="rated-by-table" type="application/json">(.*?)</script>', html)
    assert data is not None and json.loads(data.group(1))["2-1"] == ALONE
    assert 'src="/static/games/rated_note.js"' in html
    # a form sent back with an error keeps the reason of what was chosen
    html = client.post(
        reverse("game_create"),
        {"kind": "keltis", "player_count": "3", "days_per_move": "99", "seat_1": "normal"},
    ).content.decode()
    assert TWO_AND_A_BOT in unescape(html)


# -- the game page ------------------------------------------------------------------------------
def page_note(client: Any, game: Game) -> str:
    html = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    note = re.search(r'<p class="rated-note[^"]*">(.*?)</p>', html, re.S)
    assert note is not None
    # the proviso of a rated game still being played: tests/games/test_rated_timeouts.py
    return unescape(note.group(1)).split(" It stays unrated if")[0]


@pytest.mark.django_db
def test_the_game_page_says_whether_the_game_is_rated(client: Any, make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    with_bot = game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"])
    assert with_bot.status == GameStatus.OPEN  # seat 2 waits for a person: already counted
    assert page_note(client, with_bot) == TWO_AND_A_BOT
    game_join(game_id=with_bot.pk, user=bela)
    assert page_note(client, with_bot) == TWO_AND_A_BOT
    practice = game_create(creator=anna, kind="keltis-cards", player_count=2, bots=["random"])
    assert page_note(client, practice) == ALONE
    people = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=people.pk, user=bela)
    assert page_note(client, people) == TWO


@pytest.mark.django_db
def test_a_finished_game_where_one_person_moved_says_so(client: Any, make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"])
    game_join(game_id=game.pk, user=bela)
    for seq, (seat, source) in enumerate(
        [(0, EventSource.PLAYER), (1, EventSource.BOT), (2, EventSource.TIMEOUT)], start=1
    ):
        Event.objects.create(game=game, seq=seq, seat=seat, action="x", source=source)
    for index in range(3):
        Seat.objects.filter(game=game, index=index).update(place=index + 1, score=10 - index)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED, to_move=None)
    game.refresh_from_db()
    assert page_note(client, game) == "Unrated: fewer than two people made a move of their own."
