"""How many open games one player may have created at once (games.creation_limits): refused
with a message in the player's language and nothing created; staff and the games the site
makes itself (league matchmaker, tournament rounds) are not limited."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import creation_limits
from games.models import Game, GameStatus
from games.services import CreationLimitReached, game_create, game_join, game_leave
from tournaments import leagues, rounds
from tournaments.models import League

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """The services word refusals in the active language: match them in English, whatever an
    earlier test's request in another language left active in this thread."""
    with translation.override("en"):
        yield


def open_games_of(user: Any) -> int:
    return Game.objects.filter(created_by=user, status=GameStatus.OPEN).count()


def fill_to_the_limit(user: Any) -> list[Game]:
    return [game_create(creator=user, kind="keltis", player_count=2) for _ in range(5)]


def test_the_default_limit_refuses_a_sixth_open_game_and_creates_nothing(make_user: Any) -> None:
    anna = make_user("anna")
    fill_to_the_limit(anna)

    with pytest.raises(CreationLimitReached) as refused:
        game_create(creator=anna, kind="keltis-cards", player_count=3)

    assert "at most 5 open games" in str(refused.value)
    assert Game.objects.filter(created_by=anna).count() == 5


def test_the_limit_is_a_setting(make_user: Any, settings: Any) -> None:
    settings.MAX_OPEN_GAMES_PER_PLAYER = 1
    anna = make_user()
    game_create(creator=anna, kind="keltis", player_count=2)
    with pytest.raises(CreationLimitReached, match="at most 1 open game waiting"):
        game_create(creator=anna, kind="keltis", player_count=2)


def test_a_started_or_cancelled_game_frees_its_place(make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    first, second, *_ = fill_to_the_limit(anna)

    game_join(game_id=first.pk, user=bela)  # starts: no longer open
    game_create(creator=anna, kind="keltis", player_count=2)
    game_leave(game_id=second.pk, user=anna)  # the creator leaving cancels it
    game_create(creator=anna, kind="keltis", player_count=2)

    assert open_games_of(anna) == 5


def test_a_game_full_of_bots_starts_at_once_and_is_not_refused(make_user: Any) -> None:
    anna = make_user()
    fill_to_the_limit(anna)

    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy", "greedy"])

    assert game.status == GameStatus.RUNNING
    # a bot that leaves a seat free makes an open game, which counts
    with pytest.raises(CreationLimitReached):
        game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"])


def test_games_the_player_joined_do_not_count(make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    for _ in range(5):
        game_join(game_id=game_create(creator=bela, kind="keltis", player_count=3).pk, user=anna)
    assert game_create(creator=anna, kind="keltis", player_count=2).status == GameStatus.OPEN


def test_staff_are_not_limited(make_user: Any) -> None:
    organiser = make_user(is_staff=True)
    for _ in range(7):
        game_create(creator=organiser, kind="keltis", player_count=2)
    assert open_games_of(organiser) == 7


def test_the_league_matchmaker_seats_a_player_at_the_limit(make_user: Any) -> None:
    league = League.objects.create(name="Cards", kind="keltis-cards", min_players=2, max_players=2)
    anna, bela = make_user(), make_user()
    fill_to_the_limit(anna)
    fill_to_the_limit(bela)
    for user in (anna, bela):
        leagues.league_join(league_id=league.pk, user=user, max_games=1)

    assert leagues.matchmaker_pass(now=timezone.now()) == 1

    [game] = Game.objects.filter(season_link__season__league=league)
    assert game.status == GameStatus.RUNNING
    assert set(game.seats.values_list("user", flat=True)) == {anna.pk, bela.pk}


def test_a_tournament_round_starts_the_games_of_players_at_the_limit(make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    now = timezone.now()
    tournament = rounds.tournament_create(
        creator=anna, name="Cup", kind="keltis", format="round_robin",
        signup_until=now + timedelta(hours=1), now=now,
    )  # fmt: skip
    for user in (anna, bela):
        rounds.tournament_signup(tournament_id=tournament.pk, user=user, now=now)
    fill_to_the_limit(anna)
    fill_to_the_limit(bela)

    rounds.tournaments_advance(now=now + timedelta(hours=2))

    [game] = Game.objects.filter(tournament_link__round__tournament=tournament)
    assert game.status == GameStatus.RUNNING


@pytest.mark.parametrize("language", ["en", "hu", "ru"])
def test_the_create_form_says_why_in_the_players_language(
    client: Client, make_user: Any, language: str
) -> None:
    anna = make_user(language=language)
    fill_to_the_limit(anna)
    client.force_login(anna)

    response = client.post(
        reverse("game_create"), {"kind": "keltis", "player_count": "2", "days_per_move": "3"}
    )

    assert response.status_code == 200
    with translation.override(language):
        expected = str(creation_limits.open_games_text(5))
    assert expected in response.content.decode()
    assert language == "en" or "You may have" not in expected
    assert Game.objects.filter(created_by=anna).count() == 5


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (CI runs it)"
)
def test_two_creations_at_once_cannot_both_pass_the_count(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each request counts, then waits for the other to count too before it creates: without
    the lock on the creator both see 4 open games and both create one; with it the second
    waits for the first to commit, counts 5 and is refused."""
    anna = make_user()
    for _ in range(4):
        game_create(creator=anna, kind="keltis", player_count=2)
    both_counted = threading.Barrier(2)
    counted = creation_limits.open_game_refusal

    def count_then_wait(creator: Any) -> Any:
        refusal = counted(creator)
        # with the lock the other one waits for ours, never arrives: go on after a while
        with contextlib.suppress(threading.BrokenBarrierError):
            both_counted.wait(timeout=3)
        return refusal

    monkeypatch.setattr(creation_limits, "open_game_refusal", count_then_wait)
    outcomes: list[str] = []

    def create() -> None:
        try:
            game_create(creator=anna, kind="keltis", player_count=2)
            outcomes.append("created")
        except CreationLimitReached:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["created", "refused"]
    assert open_games_of(anna) == 5


# -- games with bots (MAX_BOT_GAMES_PER_PLAYER) ---------------------------------------------------


def bot_games_of(user: Any) -> int:
    return creation_limits.unfinished_bot_games(user)


def fill_with_bot_games(user: Any, count: int = 5) -> list[Game]:
    return [
        game_create(creator=user, kind="keltis", player_count=2, bots=["strong"])
        for _ in range(count)
    ]


def test_a_sixth_running_game_with_bots_is_refused_and_creates_nothing(make_user: Any) -> None:
    anna = make_user()
    games = fill_with_bot_games(anna)
    assert all(game.status == GameStatus.RUNNING for game in games)

    with pytest.raises(CreationLimitReached) as refused:
        game_create(creator=anna, kind="keltis", player_count=3, bots=["easy", "normal"])

    assert "at most 5 unfinished games with bots" in str(refused.value)
    assert Game.objects.filter(created_by=anna).count() == 5
    # a game with people only is another matter
    assert game_create(creator=anna, kind="keltis", player_count=2).status == GameStatus.OPEN


def test_an_open_game_with_a_bot_counts_too(make_user: Any) -> None:
    """A table waiting for a person with a bot seated runs that bot once the person comes."""
    anna = make_user()
    fill_with_bot_games(anna, 4)
    game_create(creator=anna, kind="keltis", player_count=3, bots=["strong"])  # open

    with pytest.raises(CreationLimitReached):
        game_create(creator=anna, kind="keltis", player_count=2, bots=["easy"])


def test_the_bot_game_limit_is_a_setting(make_user: Any, settings: Any) -> None:
    settings.MAX_BOT_GAMES_PER_PLAYER = 1
    anna = make_user()
    fill_with_bot_games(anna, 1)
    with pytest.raises(CreationLimitReached, match="at most 1 unfinished game with bots"):
        fill_with_bot_games(anna, 1)


def test_a_finished_game_with_bots_frees_its_place(make_user: Any) -> None:
    anna = make_user()
    first, *_ = fill_with_bot_games(anna)
    Game.objects.filter(pk=first.pk).update(status=GameStatus.FINISHED)

    fill_with_bot_games(anna, 1)

    assert bot_games_of(anna) == 5


def test_staff_and_the_sites_own_tables_are_not_limited(make_user: Any) -> None:
    organiser = make_user(is_staff=True)
    fill_with_bot_games(organiser, 7)
    assert bot_games_of(organiser) == 7

    anna = make_user()
    fill_with_bot_games(anna)
    # a league table the matchmaker fills with bots: made by the site, seated at once
    league = League.objects.create(
        name="Bots", kind="keltis", min_players=2, max_players=2, bot_level="strong"
    )
    leagues.league_join(league_id=league.pk, user=anna, max_games=1)
    later = timezone.now() + timedelta(hours=2)
    assert leagues.matchmaker_pass(now=later) == 1
    [table] = Game.objects.filter(season_link__season__league=league)
    assert table.status == GameStatus.RUNNING
    assert bot_games_of(anna) == 5  # the league's table is not hers to count


@pytest.mark.parametrize("language", ["en", "hu", "ru"])
def test_the_create_form_says_the_bot_limit_in_the_players_language(
    client: Client, make_user: Any, language: str
) -> None:
    anna = make_user(language=language)
    fill_with_bot_games(anna)
    client.force_login(anna)

    response = client.post(
        reverse("game_create"),
        {
            "kind": "keltis",
            "player_count": "2",
            "days_per_move": "3",
            "seat_1": "strong",
        },
    )

    assert response.status_code == 200
    with translation.override(language):
        expected = str(creation_limits.bot_games_text(5))
    assert expected in response.content.decode()
    assert language == "en" or "You may have" not in expected
    assert Game.objects.filter(created_by=anna).count() == 5


def test_the_api_refuses_with_its_creation_limit_error(client: Client, make_user: Any) -> None:
    anna = make_user(language="de")
    fill_with_bot_games(anna)
    client.force_login(anna)

    response = client.post(
        "/api/v1/games/",
        {"kind": "keltis", "players": 2, "bots": ["strong"]},
        content_type="application/json",
    )

    assert response.status_code == 409
    assert response.json()["code"] == "creation_limit"
    with translation.override("de"):
        assert response.json()["message"] == str(creation_limits.bot_games_text(5))
    assert Game.objects.filter(created_by=anna).count() == 5
