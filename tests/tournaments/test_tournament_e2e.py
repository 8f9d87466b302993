"""A whole tournament of bot players, end to end, through the services a person uses.

Six people sign up for a 2-player Swiss of three rounds of the card game; the sign-up closes
and the periodic advance starts it; then the seat to move in each game plays the greedy bot's
choice (about 140 actions a game; the random bot's games take twice as many) through
``games.services.action_submit`` as that seat's user, with the after-commit hooks run: the
finished-game task (Celery eager in tests) rates each game and pairs the next round, as in
production. At the end: the standings add up and the ratings moved.
"""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from accounts.models import User
from games.engine.bots import GreedyBot
from games.models import Game, GameStatus, Seat
from games.services import action_submit
from games.state import engine_state
from tournaments import rounds
from tournaments.models import Rating, RatingChange, Round, Tournament, TournamentGame

pytestmark = pytest.mark.django_db

START = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
PLAYERS = 6
ROUNDS = 3
RATINGS_WRITTEN = importlib.util.find_spec("tournaments.ratings") is not None


def running_tournament_games(tournament: Tournament) -> list[Game]:
    return list(
        Game.objects.filter(
            tournament_link__round__tournament=tournament, status=GameStatus.RUNNING
        ).order_by("pk")
    )


def play_turn(game: Game, bot: GreedyBot) -> None:
    """The seat to move plays its whole turn as its person would (the bot only chooses): each
    action through ``action_submit`` with the seat's user, after the state it saw."""
    seat = Seat.objects.select_related("user").get(game=game, index=game.to_move)
    engine = engine_state(game)
    seq = game.seq
    while engine.to_move == seat.index and not engine.finished:
        done = action_submit(
            game_id=game.pk,
            seat=seat.index,
            action=bot.choose(engine),
            expected_seq=seq,
            user=seat.user,
        )
        engine, seq = done.engine, done.game.seq


def test_a_swiss_of_bots_runs_from_sign_up_to_final_standings_and_ratings(
    django_capture_on_commit_callbacks: Any,
) -> None:
    users = [
        User.objects.create_user(
            username=f"bot{i}", email=f"bot{i}@example.test", password="x", email_mode="none"
        )
        for i in range(PLAYERS)
    ]
    with time_machine.travel(START - timedelta(days=2), tick=False):
        tournament = rounds.tournament_create(
            creator=users[0],
            name="Bots' cup",
            kind="keltis-cards",
            format=Tournament.Format.SWISS,
            table_size=2,
            rounds=ROUNDS,
            signup_until=START,
            round_days=10,
            days_per_move=3,
        )
        for user in users:
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)

    bot = GreedyBot(seed=20260601)
    caught_up = 0
    with time_machine.travel(START + timedelta(minutes=1), tick=False) as traveller:
        with django_capture_on_commit_callbacks(execute=True):
            assert rounds.tournaments_advance(now=START + timedelta(minutes=1)) == 1
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.RUNNING
        for _ in range(10_000):
            games = running_tournament_games(tournament)
            if not games:
                tournament.refresh_from_db()
                if tournament.status == Tournament.Status.FINISHED:
                    break
                # the finished-game hook moves rounds on; the periodic advance is the catch-up
                with django_capture_on_commit_callbacks(execute=True):
                    caught_up += rounds.tournaments_advance(now=timezone.now())
                continue
            for game in games:  # one turn of each game, round the tables as people would
                traveller.shift(timedelta(minutes=5))
                with django_capture_on_commit_callbacks(execute=True):
                    play_turn(game, bot)
        else:  # pragma: no cover
            pytest.fail("the tournament did not finish")

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert caught_up == 0, "the finished-game task did not move the rounds on by itself"
    assert Round.objects.filter(tournament=tournament).count() == ROUNDS
    assert all(r.finished_at for r in tournament.round_set.all())
    tables = TournamentGame.objects.filter(round__tournament=tournament)
    assert tables.filter(bye__isnull=False).count() == 0
    assert tables.count() == ROUNDS * PLAYERS // 2
    assert not Game.objects.filter(tournament_link__round__tournament=tournament).exclude(
        status=GameStatus.FINISHED
    ).exists()

    standings = rounds.tournament_standings(tournament)
    assert len(standings) == PLAYERS
    assert all(row.games == ROUNDS for row in standings)
    # one point a game is shared out at every 2-player table
    assert sum(row.points for row in standings) == ROUNDS * PLAYERS // 2
    keys = [(-row.points, -row.buchholz, -(row.rating or 0)) for row in standings]
    assert keys == sorted(keys)
    assert standings[0].rank == 1
    # no pair met twice (6 players, 3 rounds: always possible)
    met = [
        frozenset(Seat.objects.filter(game=t.game).values_list("user_id", flat=True))
        for t in tables
    ]
    assert len(met) == len(set(met))

    if RATINGS_WRITTEN:
        assert RatingChange.objects.filter(
            game__tournament_link__round__tournament=tournament
        ).count() == ROUNDS * PLAYERS
        ratings = dict(
            Rating.objects.filter(kind="keltis-cards").values_list("user_id", "rating")
        )
        assert set(ratings) == {u.pk for u in users}
        assert any(abs(r - 1500.0) > 1 for r in ratings.values())
        assert all(
            Rating.objects.get(user=u, kind="keltis-cards").games == ROUNDS for u in users
        )
