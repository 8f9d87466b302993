"""Tournaments (tournaments/rounds.py and its pages): sign-up, start, pairing per format,
rounds moving on, round deadlines, locking, standings.

Most games here are decided by ``decide``: a test shortcut that writes a result the way
``games.services._finish`` does (places on the seats, the game finished) and then calls the
finished-game step ``round_check_for_game``, so a test controls who wins. Games really played
through the services are in test_tournament_e2e.py; the round-deadline test uses the real
``game_finish_early`` path.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Event, Game, GameStatus, Seat
from games.services import action_submit
from games.state import engine_state
from tournaments import rounds
from tournaments.models import Rating, Round, Tournament, TournamentGame, TournamentPlayer
from tournaments.pairing import SwissPlayer, round_robin, swiss_tables
from tournaments.rounds import TournamentError, table_points

pytestmark = pytest.mark.django_db

START = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
AFTER = START + timedelta(minutes=1)
Format = Tournament.Format
Status = Tournament.Status

_counter = itertools.count(1)


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(name: str | None = None, rating: float | None = None, **fields: Any) -> User:
        name = name or f"t{next(_counter)}"
        user = User.objects.create_user(
            username=name, email=f"{name}@example.test", password="a long pass phrase", **fields
        )
        if rating is not None:
            Rating.objects.create(user=user, kind="keltis", rating=rating, highest=rating)
        return user

    return make


def open_tournament(creator: User, **fields: Any) -> Tournament:
    """A tournament created the day before START, open for sign-up until START."""
    fields = {
        "name": "Spring cup",
        "kind": "keltis",
        "format": Format.SWISS,
        "table_size": 2,
        "rounds": 3,
        "round_days": 10,
        "days_per_move": 3,
        **fields,
    }
    with time_machine.travel(START - timedelta(days=1), tick=False):
        return rounds.tournament_create(creator=creator, signup_until=START, **fields)


def started(make_user: Callable[..., User], n: int, ratings: Sequence[float] = (), **fields: Any):
    """A tournament of n players (optional ratings, best first by default), started at AFTER."""
    users = [
        make_user(rating=ratings[i] if i < len(ratings) else None) for i in range(n)
    ]
    tournament = open_tournament(users[0], **fields)
    with time_machine.travel(START - timedelta(hours=1), tick=False):
        for user in users:
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)
    with time_machine.travel(AFTER, tick=False):
        rounds.tournaments_advance(now=AFTER)
    tournament.refresh_from_db()
    return tournament, users


def round_tables(tournament: Tournament, number: int) -> list[list[int]]:
    """The round's tables as user ids in seat order (a bye: a table of one), in stored order."""
    out = []
    for table in TournamentGame.objects.filter(
        round__tournament=tournament, round__number=number
    ).order_by("pk"):
        if table.game_id is None:
            out.append([table.bye.user_id])
        else:
            out.append(list(table.game.seats.order_by("index").values_list("user_id", flat=True)))
    return out


def round_games(tournament: Tournament, number: int) -> list[Game]:
    return list(
        Game.objects.filter(
            tournament_link__round__tournament=tournament, tournament_link__round__number=number
        ).order_by("tournament_link__pk")
    )


def decide(game: Game, places_by_user: dict[int, int], *, check: bool = True) -> int:
    """Finish ``game`` with these places (user id -> place; equal numbers tie) and run the
    finished-game step. Returns what the step changed."""
    for seat in game.seats.all():
        place = places_by_user[seat.user_id]
        Seat.objects.filter(pk=seat.pk).update(place=place, score=10 - place)
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.FINISHED, finished_at=timezone.now(), to_move=None, deadline=None
    )
    return rounds.round_check_for_game(game_id=game.pk) if check else 0


def decide_by_seat(game: Game, *places: int, check: bool = True) -> int:
    seats = list(game.seats.order_by("index").values_list("user_id", flat=True))
    return decide(game, dict(zip(seats, places, strict=True)), check=check)


def decide_round_by_rank(tournament: Tournament, number: int) -> None:
    """Every game of the round: the better seed wins."""
    seeds = dict(tournament.players.values_list("user_id", "seed"))
    for game in round_games(tournament, number):
        users = sorted(game.seats.values_list("user_id", flat=True), key=seeds.get)
        decide(game, {u: p for p, u in enumerate(users, start=1)})


# -- creating, signing up, starting --------------------------------------------------------------
def test_sign_up_until_the_start_time_then_round_one_starts_on_its_own(make_user: Any) -> None:
    anna, bela, cili, dora = (
        make_user(rating=1600), make_user(), make_user(rating=1700), make_user()
    )
    tournament = open_tournament(anna, table_size=2)
    with time_machine.travel(START - timedelta(hours=5), tick=False):
        for user in (anna, bela, cili, dora):
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)
        with pytest.raises(TournamentError, match="already signed up"):
            rounds.tournament_signup(tournament_id=tournament.pk, user=anna)
        rounds.tournament_withdraw(tournament_id=tournament.pk, user=dora)
        with pytest.raises(TournamentError, match="not signed up"):
            rounds.tournament_withdraw(tournament_id=tournament.pk, user=dora)
        rounds.tournament_signup(tournament_id=tournament.pk, user=dora)
        # before the start time nothing happens
        assert rounds.tournaments_advance(now=START - timedelta(seconds=1)) == 0
    tournament.refresh_from_db()
    assert tournament.status == Status.SIGNUP and not tournament.round_set.exists()

    with time_machine.travel(AFTER, tick=False):
        late = make_user()
        with pytest.raises(TournamentError, match="closed"):
            rounds.tournament_signup(tournament_id=tournament.pk, user=late)
        assert rounds.tournaments_advance(now=AFTER) == 1
    tournament.refresh_from_db()
    assert tournament.status == Status.RUNNING
    # seeds by the rating at the start (1500 without one; equal: who signed up first)
    players = {p.user_id: p for p in tournament.players.all()}
    assert [players[u.pk].seed for u in (cili, anna, bela, dora)] == [1, 2, 3, 4]
    assert players[bela.pk].rating == 1500.0 and players[cili.pk].rating == 1700.0
    (round_1,) = tournament.round_set.all()
    assert round_1.started_at == AFTER and round_1.deadline == AFTER + timedelta(days=10)
    games = round_games(tournament, 1)
    assert len(games) == 2
    for game in games:
        assert game.status == GameStatus.RUNNING and game.rated and game.player_count == 2
        assert game.kind == "keltis" and game.days_per_move == 3
    # the classic fold: 1 v 3, 2 v 4
    assert round_tables(tournament, 1) == [[cili.pk, bela.pk], [anna.pk, dora.pk]]
    with time_machine.travel(AFTER, tick=False), pytest.raises(TournamentError, match="closed"):
        rounds.tournament_withdraw(tournament_id=tournament.pk, user=dora)


def test_fewer_than_two_players_cancel_the_tournament(make_user: Any) -> None:
    anna = make_user()
    tournament = open_tournament(anna)
    with time_machine.travel(START - timedelta(hours=1), tick=False):
        rounds.tournament_signup(tournament_id=tournament.pk, user=anna)
    assert rounds.tournaments_advance(now=AFTER) == 1
    tournament.refresh_from_db()
    assert tournament.status == Status.CANCELLED
    assert not Round.objects.exists() and not Game.objects.exists()
    assert rounds.tournament_standings(tournament) == []


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"format": Format.ROUND_ROBIN, "table_size": 3}, "2 players"),
        ({"format": Format.ELIMINATION, "table_size": 4}, "2 players"),
        ({"format": Format.SWISS, "table_size": 5}, "2 to 4"),
        ({"format": Format.SWISS, "rounds": 0}, "rounds"),
        ({"kind": "chess"}, "Unknown game"),
        ({"format": "ladder"}, "format"),
        ({"name": "  "}, "name"),
        ({"round_days": 0}, "round lasts"),
        ({"days_per_move": 4}, "days per move"),
        ({"bank_increment_hours": 5, "bank_cap_hours": 2}, "cap"),
        ({"options": {"no_such_option": True}}, "unknown option"),
    ],
)
def test_create_refuses_what_cannot_be_played(
    make_user: Any, fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(TournamentError, match=message):
        open_tournament(make_user(), **fields)


def test_create_refuses_a_sign_up_deadline_in_the_past(make_user: Any) -> None:
    with time_machine.travel(START, tick=False), pytest.raises(TournamentError, match="future"):
        rounds.tournament_create(
            creator=make_user(), name="x", kind="keltis", format=Format.SWISS,
            signup_until=START - timedelta(minutes=1),
        )


# -- Swiss --------------------------------------------------------------------------------------
def test_swiss_of_ten_at_tables_of_four_seats_4_3_3_with_the_fewest_repeat_opponents(
    make_user: Any,
) -> None:
    ratings = [2000 - 10 * i for i in range(10)]
    tournament, users = started(make_user, 10, ratings, table_size=4, rounds=3)
    tables_1 = round_tables(tournament, 1)
    assert [len(t) for t in tables_1] == [4, 3, 3]
    assert sorted(u for t in tables_1 for u in t) == sorted(u.pk for u in users)
    # round 1 cut from the ranking: 1-4, 5-7, 8-10
    ids = [u.pk for u in users]
    assert [sorted(t, key=ids.index) for t in tables_1] == [ids[:4], ids[4:7], ids[7:]]
    for game, table in zip(round_games(tournament, 1), tables_1, strict=True):
        assert game.player_count == len(table) and game.status == GameStatus.RUNNING

    decide_round_by_rank(tournament, 1)
    tables_2 = round_tables(tournament, 2)
    assert [len(t) for t in tables_2] == [4, 3, 3]
    met_1 = {frozenset(p) for t in tables_1 for p in itertools.combinations(t, 2)}
    met_2 = {frozenset(p) for t in tables_2 for p in itertools.combinations(t, 2)}
    # Round 1 sat groups of 4, 3 and 3, so a table of 4 in round 2 must seat two players of
    # one group: one repeated pair is unavoidable, and one is all there is.
    assert len(met_1 & met_2) == 1
    # exactly what the pure pairing gives for these points and this history
    points = rounds._results(tournament).points
    expected = swiss_tables(
        [SwissPlayer(u, points[u], r) for u, r in zip(ids, ratings, strict=True)], 4, tables_1
    )
    assert sorted(map(sorted, tables_2)) == sorted(map(sorted, expected))

    decide_round_by_rank(tournament, 2)
    assert [len(t) for t in round_tables(tournament, 3)] == [4, 3, 3]
    decide_round_by_rank(tournament, 3)
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    assert tournament.round_set.count() == 3


def test_swiss_pairs_no_repeat_opponents_when_it_can(make_user: Any) -> None:
    """Eight players at tables of 2 over three rounds: a repeat-free pairing always exists."""
    tournament, _users = started(make_user, 8, [1900 - 10 * i for i in range(8)], rounds=3)
    pairs: Counter[frozenset[int]] = Counter()
    for number in (1, 2, 3):
        tables = round_tables(tournament, number)
        assert sorted(len(t) for t in tables) == [2, 2, 2, 2]
        pairs.update(frozenset(t) for t in tables)
        decide_round_by_rank(tournament, number)
    assert len(pairs) == 12 and set(pairs.values()) == {1}


def test_swiss_gives_the_first_seat_to_whoever_had_it_least(make_user: Any) -> None:
    tournament, _users = started(make_user, 4, [1900, 1800, 1700, 1600], rounds=3)
    firsts: Counter[int] = Counter()
    for number in (1, 2, 3):
        tables = round_tables(tournament, number)
        for table in tables:
            assert firsts[table[0]] <= min(firsts[u] for u in table)
            firsts[table[0]] += 1
        if number < 3:
            decide_round_by_rank(tournament, number)
    assert max(firsts.values()) - min(firsts.values()) <= 1


def test_swiss_with_an_odd_field_gives_one_bye_worth_a_win_and_never_twice(
    make_user: Any,
) -> None:
    tournament, users = started(make_user, 5, [1900, 1800, 1700, 1600, 1500], rounds=3)
    byes = []
    for number in (1, 2, 3):
        tables = round_tables(tournament, number)
        (bye,) = [t[0] for t in tables if len(t) == 1]
        byes.append(bye)
        decide_round_by_rank(tournament, number)
    assert len(set(byes)) == 3
    assert byes[0] == users[4].pk  # the lowest ranked first
    standings = {row.user.pk: row for row in rounds.tournament_standings(tournament)}
    for user in byes:
        assert standings[user].byes == 1
    assert sum(row.points for row in standings.values()) == 3 * 2 + 3 * 1.0  # games + byes


# -- round robin -------------------------------------------------------------------------------
def test_round_robin_of_five_follows_the_berger_table_with_a_bye(make_user: Any) -> None:
    ratings = [1900, 1800, 1700, 1600, 1500]
    tournament, users = started(make_user, 5, ratings, format=Format.ROUND_ROBIN)
    assert tournament.rounds == 5  # the Berger table for 6: five rounds
    by_seed = {p.seed: p.user_id for p in tournament.players.all()}
    assert [by_seed[s] for s in range(1, 6)] == [u.pk for u in users]
    table = round_robin(5)
    for number in range(1, 6):
        expected = []
        for white, black in table[number - 1]:
            if 6 in (white, black):
                bye = [by_seed[min(white, black)]]
            else:
                expected.append([by_seed[white], by_seed[black]])  # white sits first
        assert round_tables(tournament, number) == [*expected, bye]
        tournament.refresh_from_db()
        assert tournament.status == Status.RUNNING
        decide_round_by_rank(tournament, number)
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    pairs = Counter(
        frozenset(t) for n in range(1, 6) for t in round_tables(tournament, n) if len(t) == 2
    )
    assert len(pairs) == 10 and set(pairs.values()) == {1}  # everyone met everyone once
    standings = rounds.tournament_standings(tournament)
    # the better seed won every game: 4 wins + bye for seed 1, 3 + bye for seed 2, ...
    assert [(row.user.pk, row.points, row.rank) for row in standings] == [
        (users[0].pk, 5.0, 1), (users[1].pk, 4.0, 2), (users[2].pk, 3.0, 3),
        (users[3].pk, 2.0, 4), (users[4].pk, 1.0, 5),
    ]
    assert all(row.games == 4 and row.byes == 1 for row in standings)


# -- elimination -------------------------------------------------------------------------------
def test_elimination_of_six_gives_byes_to_seeds_one_and_two_and_the_final_decides(
    make_user: Any,
) -> None:
    ratings = [1900, 1800, 1700, 1600, 1500, 1400]
    tournament, users = started(make_user, 6, ratings, format=Format.ELIMINATION)
    s = {n + 1: u.pk for n, u in enumerate(users)}  # seed -> user id
    assert tournament.rounds == 3
    # bracket order: 1 (bye), 4-5, 3-6, 2 (bye)
    assert round_tables(tournament, 1) == [[s[1]], [s[4], s[5]], [s[3], s[6]], [s[2]]]
    g45, g36 = round_games(tournament, 1)
    assert decide(g45, {s[5]: 1, s[4]: 2}) == 0  # 3-6 still running
    assert not tournament.round_set.filter(number=2).exists()
    assert decide(g36, {s[3]: 1, s[6]: 1}) == 1  # a tie: the higher seed (3) goes through
    assert set(tournament.players.filter(eliminated=True).values_list("user_id", flat=True)) == {
        s[4], s[6]
    }
    # winners of neighbouring tables meet, the better seed first
    assert round_tables(tournament, 2) == [[s[1], s[5]], [s[2], s[3]]]
    g15, g23 = round_games(tournament, 2)
    decide(g15, {s[1]: 1, s[5]: 2})
    decide(g23, {s[2]: 2, s[3]: 1})
    assert round_tables(tournament, 3) == [[s[1], s[3]]]
    (final,) = round_games(tournament, 3)
    decide(final, {s[1]: 2, s[3]: 1})
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    standings = rounds.tournament_standings(tournament)
    assert [(row.user.pk, row.rank, row.reached) for row in standings] == [
        (s[3], 1, 3),  # the champion
        (s[1], 2, 3),
        (s[2], 3, 2), (s[5], 3, 2),  # semi-finalists share third
        (s[4], 5, 1), (s[6], 5, 1),
    ]
    assert [row.eliminated for row in standings] == [False] + [True] * 5


def test_elimination_of_two_is_one_final(make_user: Any) -> None:
    tournament, users = started(make_user, 2, [1500, 1600], format=Format.ELIMINATION)
    assert tournament.rounds == 1
    (final,) = round_games(tournament, 1)
    assert round_tables(tournament, 1) == [[users[1].pk, users[0].pk]]
    decide(final, {users[0].pk: 1, users[1].pk: 1})  # tied: the higher seed wins
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    assert rounds.tournament_standings(tournament)[0].user == users[1]


# -- moving on ------------------------------------------------------------------------------
def test_the_next_round_is_paired_only_when_every_game_of_the_round_finished(
    make_user: Any,
) -> None:
    tournament, _users = started(make_user, 4, [1900, 1800, 1700, 1600], rounds=2)
    first, second = round_games(tournament, 1)
    assert decide_by_seat(first, 1, 2) == 0
    assert rounds.tournaments_advance(now=AFTER + timedelta(hours=1)) == 0
    assert tournament.round_set.count() == 1
    # a finished game whose hook was lost: the periodic advance catches up
    decide_by_seat(second, 2, 1, check=False)
    assert rounds.tournaments_advance(now=AFTER + timedelta(hours=2)) == 1
    round_1, round_2 = tournament.round_set.order_by("number")
    assert round_1.finished_at == AFTER + timedelta(hours=2)
    assert round_2.started_at == AFTER + timedelta(hours=2) and round_2.finished_at is None
    assert len(round_games(tournament, 2)) == 2
    for game in round_games(tournament, 2):
        decide_by_seat(game, 1, 2)
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    assert all(r.finished_at for r in tournament.round_set.all())


def test_a_round_deadline_ends_stuck_games_by_the_timeout_policy(make_user: Any) -> None:
    tournament, _users = started(
        make_user, 2, [1600, 1500], rounds=2, round_days=3, days_per_move=7
    )
    (game,) = round_games(tournament, 1)
    with time_machine.travel(AFTER + timedelta(hours=1), tick=False):
        for _ in range(6):  # a few moves, then nobody moves any more
            game.refresh_from_db()
            seat = Seat.objects.get(game=game, index=game.to_move)
            action = engine_state(game).legal()[0]
            action_submit(
                game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq,
                user=seat.user,
            )
    game.refresh_from_db()
    moved = game.seq
    assert rounds.tournaments_advance(now=AFTER + timedelta(days=3) - timedelta(seconds=1)) == 0
    deadline = AFTER + timedelta(days=3)
    with time_machine.travel(deadline, tick=False):
        assert rounds.tournaments_advance(now=deadline) == 2  # one game ended, round 2 paired
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.finished_at == deadline
    # the timeout bot played the rest of the game by the rules, for every seat
    later = Event.objects.filter(game=game, seq__gt=moved)
    assert later.exists() and set(later.values_list("source", flat=True)) == {"timeout"}
    final = engine_state(game)
    assert final.finished
    seats = list(game.seats.order_by("index"))
    assert [s.score for s in seats] == final.scores()
    assert [s.place == 1 for s in seats] == [i in final.winners() for i in range(2)]
    round_1 = tournament.round_set.get(number=1)
    assert round_1.finished_at == deadline
    assert tournament.round_set.get(number=2).deadline == deadline + timedelta(days=3)
    # running it again changes nothing
    assert rounds.tournaments_advance(now=deadline) == 0


def test_a_game_ended_by_the_timeout_policy_completes_its_round_through_the_hook(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Nobody moves: the deadline sweep's timeouts retire the seat to move, the game ends, and
    the finished-game task (Celery eager) pairs the next round at once."""
    from games import timeouts

    tournament, _users = started(make_user, 2, [1600, 1500], rounds=2, days_per_move=1)
    (game,) = round_games(tournament, 1)
    now = AFTER
    for _ in range(20):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        now = game.deadline + timedelta(seconds=1)
        with (
            time_machine.travel(now, tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            timeouts.timeout_apply(game_id=game.pk, now=now)
    assert game.status == GameStatus.FINISHED
    assert Seat.objects.filter(game=game, retired=True).count() == 1
    round_1, round_2 = tournament.round_set.order_by("number")
    assert round_1.finished_at == now and round_2.started_at == now
    assert len(round_games(tournament, 2)) == 1


def test_two_advance_runs_one_after_the_other_pair_once(make_user: Any) -> None:
    users = [make_user() for _ in range(4)]
    tournament = open_tournament(users[0])
    with time_machine.travel(START - timedelta(hours=1), tick=False):
        for user in users:
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)
    assert rounds.tournaments_advance(now=AFTER) == 1
    assert rounds.tournaments_advance(now=AFTER) == 0
    assert Round.objects.count() == 1 and Game.objects.count() == 2
    games = round_games(tournament, 1)
    for game in games:
        decide_by_seat(game, 1, 2, check=False)
    assert rounds.round_check_for_game(game_id=games[0].pk) == 1
    assert rounds.round_check_for_game(game_id=games[1].pk) == 0
    assert rounds.tournaments_advance(now=AFTER) == 0
    assert Round.objects.count() == 2 and Game.objects.count() == 4


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads (own connections) released at the same instant."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except Exception as exc:  # pragma: no cover - reported by the assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite has no row locks and serialises writers; the race needs PostgreSQL",
)
def test_two_advance_runs_at_once_start_and_pair_each_round_once(make_user: Any) -> None:
    def advance(now: datetime) -> Callable[[], int]:
        return lambda: rounds.tournaments_advance(now=now)

    def check(game: Game) -> Callable[[], int]:
        return lambda: rounds.round_check_for_game(game_id=game.pk)

    for attempt in range(3):
        users = [make_user() for _ in range(4)]
        tournament = open_tournament(users[0], name=f"race {attempt}")
        with time_machine.travel(START - timedelta(hours=1), tick=False):
            for user in users:
                rounds.tournament_signup(tournament_id=tournament.pk, user=user)
        now = AFTER + timedelta(days=attempt)
        results = race(advance(now), advance(now))
        assert sorted(results) == [0, 1]
        assert tournament.round_set.count() == 1
        games = round_games(tournament, 1)
        assert len(games) == 2
        for game in games:
            decide_by_seat(game, 1, 2, check=False)
        # the periodic run and both finished-game tasks at once: one round 2
        results = race(advance(now), check(games[0]), check(games[1]))
        assert sorted(results) == [0, 0, 1]
        assert tournament.round_set.count() == 2
        assert len(round_games(tournament, 2)) == 2


# -- standings ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("places", "points"),
    [
        ([1, 2], [1, 0]),
        ([1, 1], [0.5, 0.5]),
        ([1, 2, 3, 4], [3, 2, 1, 0]),
        ([1, 1, 3, 4], [2.5, 2.5, 1, 0]),
        ([1, 2, 2, 4], [3, 1.5, 1.5, 0]),
        ([1, 2, 2, 2], [3, 1, 1, 1]),
        ([1, 1, 1, 1], [1.5, 1.5, 1.5, 1.5]),
        ([2, 1, 3], [1, 2, 0]),
        ([1, 1, 3], [1.5, 1.5, 0]),
        ([None, None], [0, 0]),
    ],
)
def test_table_points_by_place_with_ties_sharing(
    places: list[int | None], points: list[float]
) -> None:
    assert table_points(places) == points


def test_standings_points_ties_and_buchholz(make_user: Any) -> None:
    """Four players, tables of 4 then of 2, results chosen so that two finish level on points
    and Buchholz decides; two level on both, and rating decides."""
    a, b, c, d = (make_user(rating=r) for r in (1900, 1800, 1700, 1600))
    tournament = open_tournament(a, table_size=4, rounds=2)
    with time_machine.travel(START - timedelta(hours=1), tick=False):
        for user in (a, b, c, d):
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)
    rounds.tournaments_advance(now=AFTER)
    (table,) = round_games(tournament, 1)
    # round 1 at one table of four: a and b tie for first, c third, d fourth
    decide(table, {a.pk: 1, b.pk: 1, c.pk: 3, d.pk: 4})  # a 2.5, b 2.5, c 1, d 0
    (table,) = round_games(tournament, 2)
    assert sorted(round_tables(tournament, 2)[0]) == sorted(u.pk for u in (a, b, c, d))
    decide(table, {a.pk: 4, b.pk: 1, c.pk: 2, d.pk: 2})  # a 0, b 3, c 1.5, d 1.5
    tournament.refresh_from_db()
    assert tournament.status == Status.FINISHED
    rows = rounds.tournament_standings(tournament)
    totals = {a.pk: 2.5, b.pk: 5.5, c.pk: 2.5, d.pk: 1.5}
    assert {row.user.pk: row.points for row in rows} == totals
    everyone = sum(totals.values())
    # Buchholz: the table-mates' points, once per table shared (twice here)
    for row in rows:
        assert row.buchholz == 2 * (everyone - totals[row.user.pk])
    # a and c: 2.5 each, Buchholz 2 * 7.5 each, so the start rating decides: a (1900) first
    assert [(row.user.pk, row.rank) for row in rows] == [
        (b.pk, 1), (a.pk, 2), (c.pk, 3), (d.pk, 4)
    ]


def test_standings_buchholz_breaks_a_points_tie(make_user: Any) -> None:
    tournament, (p1, p2, p3, p4) = started(make_user, 4, [1900, 1800, 1700, 1600], rounds=2)
    # round 1 (fold): p1-p3, p2-p4
    g13, g24 = round_games(tournament, 1)
    decide(g13, {p1.pk: 1, p3.pk: 2})
    decide(g24, {p2.pk: 2, p4.pk: 1})
    # round 2: winners p1 and p4 meet, losers p2 and p3 meet
    assert sorted(map(sorted, round_tables(tournament, 2))) == sorted(
        [sorted([p1.pk, p4.pk]), sorted([p2.pk, p3.pk])]
    )
    g_top, g_bottom = round_games(tournament, 2)
    decide(g_top, {p1.pk: 1, p4.pk: 2})
    decide(g_bottom, {p2.pk: 1, p3.pk: 1})
    rows = {row.user.pk: row for row in rounds.tournament_standings(tournament)}
    # points: p1 2, p4 1, p2 0.5, p3 0.5
    assert [rows[u.pk].points for u in (p1, p4, p2, p3)] == [2, 1, 0.5, 0.5]
    # p2 met p4 (1) and p3 (0.5): 1.5; p3 met p1 (2) and p2 (0.5): 2.5 -> p3 above p2
    assert rows[p2.pk].buchholz == 1.5 and rows[p3.pk].buchholz == 2.5
    assert rows[p3.pk].rank == 3 and rows[p2.pk].rank == 4


def test_players_level_on_everything_share_a_rank(make_user: Any) -> None:
    tournament, (p1, p2) = started(make_user, 2, [1500, 1500], rounds=1)
    (game,) = round_games(tournament, 1)
    decide(game, {p1.pk: 1, p2.pk: 1})
    assert [row.rank for row in rounds.tournament_standings(tournament)] == [1, 1]


# -- pages -------------------------------------------------------------------------------------
def test_list_and_detail_pages_show_tournaments_rounds_games_and_standings(
    client: Any, make_user: Any
) -> None:
    tournament, users = started(
        make_user, 5, [1900, 1800, 1700, 1600, 1500], name="Autumn open", rounds=2
    )
    with time_machine.travel(AFTER, tick=False):
        rounds.tournament_create(
            creator=users[0], name="Winter open", kind="keltis-cards", format=Format.ELIMINATION,
            signup_until=AFTER + timedelta(days=7),
        )
    decide_round_by_rank(tournament, 1)
    with time_machine.travel(AFTER, tick=False):
        response = client.get(reverse("tournament_list"))
    assert response.status_code == 200
    assert "Autumn open" in response.content.decode()
    assert "Winter open" in response.content.decode()
    response = client.get(reverse("tournament_detail", args=[tournament.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    for user in users:
        assert user.public_name in html
    for game in Game.objects.filter(tournament_link__round__tournament=tournament):
        assert f'href="/games/{game.pk}/"' in html
    assert "Buchholz" in html and "Round 2" in html and "Bye" in html
    assert client.get(reverse("tournament_detail", args=[9999])).status_code == 404


def test_signing_up_and_withdrawing_through_the_page(client: Any, make_user: Any) -> None:
    anna = make_user()
    tournament = open_tournament(anna)
    url = reverse("tournament_detail", args=[tournament.pk])
    with time_machine.travel(START - timedelta(hours=2), tick=False):
        response = client.post(reverse("tournament_signup", args=[tournament.pk]))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        client.force_login(anna)
        assert "Sign up" in client.get(url).content.decode()
        response = client.post(reverse("tournament_signup", args=[tournament.pk]), follow=True)
        assert response.redirect_chain[-1][0] == url
        assert "You are signed up" in response.content.decode()
        assert TournamentPlayer.objects.filter(tournament=tournament, user=anna).exists()
        assert client.get(reverse("tournament_signup", args=[tournament.pk])).status_code == 405
        response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), follow=True)
        assert "You withdrew" in response.content.decode()
        assert not TournamentPlayer.objects.filter(tournament=tournament).exists()
        response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), follow=True)
        assert "not signed up" in response.content.decode()
    with time_machine.travel(AFTER, tick=False):
        response = client.post(reverse("tournament_signup", args=[tournament.pk]), follow=True)
        assert "closed" in response.content.decode()


def test_creating_a_tournament_in_the_site(client: Any, make_user: Any) -> None:
    url = reverse("tournament_create")
    assert client.get(url).status_code == 302  # logged-in users only
    anna = make_user()
    client.force_login(anna)
    with time_machine.travel(START - timedelta(days=3), tick=False):
        assert client.get(url).status_code == 200
        data = {
            "name": "Card cup",
            "kind": "keltis-cards",
            "format": Format.SWISS,
            "table_size": 3,
            "rounds": 4,
            "days_per_move": 2,
            "bank_increment_hours": 0,
            "bank_cap_hours": 0,
            "signup_until": "2026-05-04T09:00",
            "round_days": 14,
        }
        bad = client.post(url, {**data, "format": Format.ROUND_ROBIN})
        assert bad.status_code == 200 and "2 players" in bad.content.decode()
        past = client.post(url, {**data, "signup_until": "2026-04-01T09:00"})
        assert past.status_code == 200 and "future" in past.content.decode()
        response = client.post(url, data)
    tournament = Tournament.objects.get(name="Card cup")
    assert response.status_code == 302
    assert response["Location"] == reverse("tournament_detail", args=[tournament.pk])
    assert (tournament.kind, tournament.format, tournament.table_size, tournament.rounds) == (
        "keltis-cards", Format.SWISS, 3, 4
    )
    assert tournament.signup_until == START and tournament.round_days == 14
    assert tournament.days_per_move == 2 and tournament.created_by == anna
    assert tournament.status == Status.SIGNUP


def test_the_site_navigation_links_the_tournaments(client: Any) -> None:
    html = client.get(reverse("tournament_list")).content.decode()
    assert f'href="{reverse("tournament_list")}" aria-current="page"' in html


# -- admin -------------------------------------------------------------------------------------
def test_the_tournament_admin_shows_tournaments_and_rounds_and_guards_the_rules(
    client: Any, make_user: Any
) -> None:
    tournament, _users = started(make_user, 3, [1700, 1600, 1500], rounds=2)
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    round_1 = tournament.round_set.get()
    for url in (
        reverse("admin:tournaments_tournament_changelist"),
        reverse("admin:tournaments_tournament_change", args=[tournament.pk]),
        reverse("admin:tournaments_tournament_add"),
        reverse("admin:tournaments_round_changelist"),
        reverse("admin:tournaments_round_change", args=[round_1.pk]),
    ):
        assert client.get(url).status_code == 200, url
    assert client.get(reverse("admin:tournaments_round_add")).status_code == 403
    data = {
        "name": "Staff cup", "kind": "keltis", "format": Format.ROUND_ROBIN, "table_size": 4,
        "rounds": 0, "signup_until_0": "2026-07-01", "signup_until_1": "10:00:00",
        "round_days": 30, "days_per_move": 3, "bank_increment_hours": 0, "bank_cap_hours": 0,
        "options": "{}",
        "players-TOTAL_FORMS": 0, "players-INITIAL_FORMS": 0,
        "round_set-TOTAL_FORMS": 0, "round_set-INITIAL_FORMS": 0,
    }
    response = client.post(reverse("admin:tournaments_tournament_add"), data)
    assert response.status_code == 200 and "2 players" in response.content.decode()
    response = client.post(reverse("admin:tournaments_tournament_add"), {**data, "table_size": 2})
    assert response.status_code == 302
    assert Tournament.objects.get(name="Staff cup").status == Status.SIGNUP
    # cancelling through the action
    response = client.post(
        reverse("admin:tournaments_tournament_changelist"),
        {"action": "cancel", "_selected_action": [tournament.pk]},
    )
    tournament.refresh_from_db()
    assert tournament.status == Status.CANCELLED
    assert rounds.tournaments_advance(now=AFTER + timedelta(days=30)) == 0
