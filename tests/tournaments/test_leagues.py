"""Leagues: the pure matchmaking, membership, the matchmaker, seasons, standings and pages."""

from __future__ import annotations

import itertools
import random
import statistics
import threading
import types
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.models import User
from games.engine.bots import RandomBot
from games.models import Game, GameStatus, Seat
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tournaments import leagues
from tournaments.leagues import (
    LeagueError,
    league_join,
    league_leave,
    league_set_max_games,
    matchmaker_pass,
    place_points,
    seasons_close_due,
    standings,
    waiting_members,
)
from tournaments.matchmaking import Candidate, match_tables, table_sizes
from tournaments.models import League, LeagueMember, Rating, Season, SeasonGame

UNFINISHED = (GameStatus.OPEN, GameStatus.RUNNING)

# --- the pure matchmaking -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "low", "high", "sizes"),
    [
        (0, 2, 4, []),
        (1, 2, 4, []),
        (2, 2, 4, [2]),
        (5, 2, 4, [3, 2]),
        (8, 2, 4, [4, 4]),
        (9, 2, 4, [3, 3, 3]),
        (10, 2, 4, [4, 3, 3]),
        (3, 4, 4, []),
        (5, 4, 4, [4]),  # one waits
        (7, 4, 4, [4]),
        (5, 3, 4, [4]),  # 3 + 2 is not allowed: one waits
        (7, 3, 4, [4, 3]),
        (5, 2, 2, [2, 2]),
        (4, 3, 3, [3]),
    ],
)
def test_table_sizes_prefer_full_tables(n: int, low: int, high: int, sizes: list[int]) -> None:
    assert table_sizes(n, low, high) == sizes


def test_table_sizes_refuse_bad_bounds() -> None:
    for low, high in ((1, 4), (3, 2), (0, 2)):
        with pytest.raises(ValueError):
            table_sizes(4, low, high)
        with pytest.raises(ValueError):
            match_tables([], low, high)


def test_close_ratings_sit_together() -> None:
    rng = random.Random(5)
    ratings = [1000 + 37 * i for i in range(12)]
    rng.shuffle(ratings)
    members = [Candidate(id=f"m{r}", rating=r) for r in ratings]

    tables = match_tables(members, 2, 4)

    best_first = [f"m{r}" for r in sorted(ratings, reverse=True)]
    assert tables == [best_first[0:4], best_first[4:8], best_first[8:12]]


def test_open_slots_give_several_tables_but_never_more() -> None:
    members = [Candidate(id=i, rating=2000 - 10 * i, slots=1 + i % 3) for i in range(10)]

    tables = match_tables(members, 2, 4)

    seated = Counter(m for t in tables for m in t)
    for member in members:
        assert seated[member.id] <= member.slots
    assert all(len(set(t)) == len(t) and 2 <= len(t) <= 4 for t in tables)
    # a member seated twice in one pass gets two different tables
    for member in members:
        mine = [frozenset(t) for t in tables if member.id in t]
        assert len(set(mine)) == len(mine)


def test_the_same_table_is_not_formed_twice_in_a_row_when_others_wait() -> None:
    top, bottom = [0, 1, 2, 3], [4, 5, 6, 7]
    members = [
        Candidate(id=i, rating=2000 - 100 * i, previous=[top if i < 4 else bottom])
        for i in range(8)
    ]

    tables = match_tables(members, 4, 4)

    assert {frozenset(t) for t in tables}.isdisjoint({frozenset(top), frozenset(bottom)})
    # the repair moves as little as it can: the neighbours across the cut swap seats
    assert tables == [[0, 1, 2, 4], [3, 5, 6, 7]]


def test_a_waiting_member_replaces_a_repeat() -> None:
    members = [Candidate(id=i, rating=2000 - 100 * i, previous=[[0, 1]]) for i in range(2)]
    members.append(Candidate(id=2, rating=1000, priority=-5))  # seated last, waits

    assert match_tables(members, 2, 2) == [[0, 2]]


def test_the_same_table_again_when_nobody_else_waits() -> None:
    members = [Candidate(id=i, rating=1500, previous=[[0, 1, 2]]) for i in range(3)]

    assert match_tables(members, 2, 4) == [[0, 1, 2]]


def test_who_waits_when_not_everyone_fits() -> None:
    # five for tables of exactly four: the one seated most recently (lowest priority) waits
    members = [Candidate(id=i, rating=1500 + i, priority=-i) for i in range(5)]

    assert match_tables(members, 4, 4) == [[3, 2, 1, 0]]


def test_matchmaking_is_deterministic() -> None:
    rng = random.Random(9)
    members = [
        Candidate(id=i, rating=rng.gauss(1500, 200), slots=rng.randint(1, 3)) for i in range(200)
    ]
    assert match_tables(members, 2, 4) == match_tables(list(members), 2, 4)


@st.composite
def waiting_fields(draw: st.DrawFn) -> tuple[list[Candidate], int, int]:
    """Members of close ratings, each with up to two earlier tables among the others."""
    low = draw(st.integers(2, 4))
    high = draw(st.integers(low, 4))
    n = draw(st.integers(0, 14))
    ratings = draw(st.lists(st.integers(1000, 1100), min_size=n, max_size=n))
    members = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        previous = []
        if len(others) >= low - 1:
            table = st.lists(
                st.sampled_from(others),
                min_size=low - 1,
                max_size=min(high - 1, len(others)),
                unique=True,
            )
            previous = draw(st.lists(table, max_size=2))
        members.append(Candidate(id=i, rating=ratings[i], previous=[{i, *p} for p in previous]))
    return members, low, high


@settings(max_examples=300, deadline=None)
@given(waiting_fields())
def test_matchmaking_properties(field: tuple[list[Candidate], int, int]) -> None:
    """One wave (one slot each): sizes within bounds, as many seated as the sizes allow, and
    no single swap (between two tables, or with a member who waits) lowers the repeats."""
    members, low, high = field
    tables = match_tables(members, low, high)
    seated = [m for t in tables for m in t]
    assert len(seated) == len(set(seated))
    assert sorted(map(len, tables), reverse=True) == table_sizes(len(members), low, high)
    avoid = {m.id: {frozenset(p) for p in m.previous} for m in members}

    def repeats(tabs: list[list[int]]) -> int:
        return sum(any(frozenset(t) in avoid[m] for m in t) for t in tabs)

    best = repeats(tables)
    waiting = [m.id for m in members if m.id not in set(seated)]
    for i, j in itertools.combinations(range(len(tables)), 2):
        for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
            swapped = [list(t) for t in tables]
            swapped[i][a], swapped[j][b] = swapped[j][b], swapped[i][a]
            assert repeats(swapped) >= best
    for i, t in enumerate(tables):
        for a, w in itertools.product(range(len(t)), waiting):
            swapped = [list(t) for t in tables]
            swapped[i][a] = w
            assert repeats(swapped) >= best


# --- fixtures -------------------------------------------------------------------------------------



@pytest.fixture
def make_league(db: None) -> Callable[..., League]:
    def make(**fields: Any) -> League:
        values = {"name": "Cards league", "kind": "keltis-cards", "min_players": 2,
                  "max_players": 4, "days_per_move": 3}  # fmt: skip
        values.update(fields)
        return League.objects.create(**values)

    return make


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals and seating orders from seeded generators: the games of a test are the same every
    run."""
    deals = random.Random(5)
    monkeypatch.setattr("games.services.secrets", types.SimpleNamespace(randbits=deals.getrandbits))
    monkeypatch.setattr(leagues, "_rng", random.Random(7))


def rated(make_user: Callable[..., User], rating: float | None, kind: str = "keltis-cards") -> User:
    user = make_user()
    if rating is not None:
        Rating.objects.create(user=user, kind=kind, rating=rating, highest=rating)
    return user


def join_many(
    league: League, make_user: Any, ratings: list[float], max_games: int = 1
) -> list[User]:
    users = [rated(make_user, r, league.kind) for r in ratings]
    for user in users:
        league_join(league_id=league.pk, user=user, max_games=max_games)
    return users


def league_tables(league: League, status: tuple[str, ...] = UNFINISHED) -> list[frozenset[int]]:
    games = Game.objects.filter(season_link__season__league=league, status__in=status)
    return [frozenset(g.seats.values_list("user_id", flat=True)) for g in games.order_by("pk")]


def unfinished_count(league: League, user: User | int) -> int:
    user_id = getattr(user, "pk", user)
    return Seat.objects.filter(
        user_id=user_id, game__season_link__season__league=league, game__status__in=UNFINISHED
    ).count()


def finish_all(league: League) -> None:
    for game in Game.objects.filter(season_link__season__league=league, status=GameStatus.RUNNING):
        leagues._decide_by_current_scores(game.pk, timezone.now())


NOW = timezone.now()

# --- membership ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_join_leave_rejoin_and_set_the_limit(make_user: Any, make_league: Any) -> None:
    league = make_league()
    anna = make_user()

    member = league_join(league_id=league.pk, user=anna, max_games=3)
    assert member.active and member.max_games == 3
    with pytest.raises(LeagueError, match="already"):
        league_join(league_id=league.pk, user=anna, max_games=2)

    assert league_set_max_games(league_id=league.pk, user=anna, max_games=5).max_games == 5
    for bad in (0, 21, "3", True):
        with pytest.raises(LeagueError):
            league_set_max_games(league_id=league.pk, user=anna, max_games=bad)

    league_leave(league_id=league.pk, user=anna)
    assert not LeagueMember.objects.get(league=league, user=anna).active
    with pytest.raises(LeagueError, match="not a member"):
        league_leave(league_id=league.pk, user=anna)
    with pytest.raises(LeagueError, match="not a member"):
        league_set_max_games(league_id=league.pk, user=anna, max_games=2)

    again = league_join(league_id=league.pk, user=anna, max_games=1)
    assert again.pk == member.pk and again.active and again.max_games == 1
    with pytest.raises(League.DoesNotExist):
        league_join(league_id=league.pk + 99, user=anna)


@pytest.mark.django_db
def test_join_respects_the_band_and_a_closed_league(make_user: Any, make_league: Any) -> None:
    league = make_league(rating_min=1400, rating_max=1700)
    assert league_join(league_id=league.pk, user=rated(make_user, None)).active  # 1500
    with pytest.raises(LeagueError, match=r"outside.*1400-1700"):
        league_join(league_id=league.pk, user=rated(make_user, 1800))
    with pytest.raises(LeagueError, match="outside"):
        league_join(league_id=league.pk, user=rated(make_user, 1399))
    # the band reads the rating of the league's game only
    board_expert = rated(make_user, 2200, kind="keltis")
    assert league_join(league_id=league.pk, user=board_expert).active

    closed = make_league(active=False)
    with pytest.raises(LeagueError, match="closed"):
        league_join(league_id=closed.pk, user=make_user())


# --- the matchmaker -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_matchmaker_seats_close_ratings_together(
    make_user: Any, make_league: Any, seeded: None
) -> None:
    league = make_league()
    ratings = [1300, 1900, 1500, 1200, 1700, 1400, 1800, 1600]
    users = join_many(league, make_user, ratings)
    by_rating = dict(zip(ratings, [u.pk for u in users], strict=True))

    assert matchmaker_pass(now=NOW) == 2

    season = Season.objects.get(league=league)
    assert (season.number, season.status) == (1, Season.Status.RUNNING)
    assert season.ends_at == season.starts_at + timedelta(days=league.season_days)
    assert sorted(league_tables(league), key=min) == sorted(
        [frozenset(by_rating[r] for r in (1900, 1800, 1700, 1600)),
         frozenset(by_rating[r] for r in (1500, 1400, 1300, 1200))],
        key=min,
    )  # fmt: skip
    for game in Game.objects.filter(season_link__season=season):
        assert game.status == GameStatus.RUNNING and game.rated and game.player_count == 4


@pytest.mark.django_db
def test_matchmaker_fills_every_slot_and_never_more(make_user: Any, make_league: Any) -> None:
    league = make_league(min_players=2, max_players=2)
    limits = [1, 3, 2, 1, 2, 3, 1, 1]
    users = [make_user() for _ in limits]
    for user, limit in zip(users, limits, strict=True):
        league_join(league_id=league.pk, user=user, max_games=limit)

    created = matchmaker_pass(now=NOW)

    assert created == sum(limits) // 2
    for user, limit in zip(users, limits, strict=True):
        assert unfinished_count(league, user) == limit
    assert matchmaker_pass(now=NOW) == 0  # nobody waits: nothing new
    assert SeasonGame.objects.count() == created

    # a lower limit ends no game; a higher one gets games at the next pass
    league_set_max_games(league_id=league.pk, user=users[1], max_games=1)
    league_set_max_games(league_id=league.pk, user=users[0], max_games=2)
    league_set_max_games(league_id=league.pk, user=users[3], max_games=2)
    assert matchmaker_pass(now=NOW) == 1
    assert unfinished_count(league, users[1]) == 3
    assert (unfinished_count(league, users[0]), unfinished_count(league, users[3])) == (2, 2)


@pytest.mark.django_db
def test_matchmaker_respects_the_band_and_membership(make_user: Any, make_league: Any) -> None:
    league = make_league(rating_min=1400, rating_max=1600)
    inside = join_many(league, make_user, [1450, 1500, 1550])
    drifted = rated(make_user, 1500)
    league_join(league_id=league.pk, user=drifted)
    Rating.objects.filter(user=drifted).update(rating=1650)  # rated out of the band since
    gone = rated(make_user, 1500)
    league_join(league_id=league.pk, user=gone)
    league_leave(league_id=league.pk, user=gone)
    asleep = rated(make_user, 1500)
    league_join(league_id=league.pk, user=asleep)
    asleep.is_active = False
    asleep.save()

    assert matchmaker_pass(now=NOW) == 1
    assert league_tables(league) == [frozenset(u.pk for u in inside)]


@pytest.mark.django_db
def test_matchmaker_does_not_re_form_the_last_table_when_others_wait(
    make_user: Any, make_league: Any
) -> None:
    league = make_league(min_players=4, max_players=4)
    users = join_many(league, make_user, [2000 - 50 * i for i in range(8)])
    matchmaker_pass(now=NOW)
    first = set(league_tables(league))
    assert first == {frozenset(u.pk for u in users[:4]), frozenset(u.pk for u in users[4:])}

    finish_all(league)
    assert matchmaker_pass(now=NOW) == 2
    second = set(league_tables(league))
    assert second.isdisjoint(first)
    assert second == {
        frozenset(u.pk for u in [*users[:3], users[4]]),
        frozenset(u.pk for u in [users[3], *users[5:]]),
    }

    # only one table's players wait: nobody else does, so they meet again
    top = Game.objects.get(
        season_link__season__league=league, status=GameStatus.RUNNING, seats__user=users[0]
    )
    leagues._decide_by_current_scores(top.pk, timezone.now())
    assert matchmaker_pass(now=NOW) == 1
    assert league_tables(league)[-1] == frozenset(top.seats.values_list("user_id", flat=True))


@pytest.mark.django_db
def test_a_second_pass_creates_nothing_new_unless_someone_waits(
    make_user: Any, make_league: Any
) -> None:
    league = make_league(min_players=4, max_players=4)
    users = join_many(league, make_user, [1500] * 5)
    assert matchmaker_pass(now=NOW) == 1
    assert matchmaker_pass(now=NOW) == 0  # one waits, alone: no table for one
    assert Game.objects.count() == 1
    waiting = [u for u in users if unfinished_count(league, u) == 0]
    assert len(waiting) == 1

    for _ in range(3):
        league_join(league_id=league.pk, user=make_user())
    assert matchmaker_pass(now=NOW) == 1
    assert unfinished_count(league, waiting[0]) == 1
    assert matchmaker_pass(now=NOW) == 0


@pytest.mark.django_db
def test_an_inactive_league_gets_no_games(make_user: Any, make_league: Any) -> None:
    league = make_league(active=False)
    for user in (make_user(), make_user()):
        LeagueMember.objects.create(league=league, user=user)
    assert matchmaker_pass(now=NOW) == 0
    assert not Season.objects.exists()


@pytest.mark.django_db
def test_a_league_with_bad_options_does_not_stop_the_others(
    make_user: Any, make_league: Any, caplog: pytest.LogCaptureFixture
) -> None:
    broken = make_league(name="Broken", options={"no_such_option": True})
    fine = make_league(name="Fine")
    for league in (broken, fine):
        join_many(league, make_user, [1500, 1500])
    assert matchmaker_pass(now=NOW) == 1
    assert league_tables(fine) and not league_tables(broken)
    assert f"league {broken.pk} cannot create its games" in caplog.text


@pytest.mark.django_db
def test_games_start_with_the_league_time_control_and_send_first_emails(
    make_user: Any, make_league: Any, django_capture_on_commit_callbacks: Any
) -> None:
    league = make_league(
        min_players=2, max_players=2, days_per_move=5, bank_increment_hours=12,
        bank_cap_hours=48, options={"closing_may_open_row": True},
    )  # fmt: skip
    join_many(league, make_user, [1500, 1500])
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert matchmaker_pass(now=timezone.now()) == 1

    game = Game.objects.get(season_link__season__league=league)
    assert game.status == GameStatus.RUNNING and game.rated
    assert (game.kind, game.days_per_move) == ("keltis-cards", 5)
    assert (game.bank_increment_hours, game.bank_cap_hours) == (12, 48)
    assert game.options == {"closing_may_open_row": True}
    assert game.deadline is not None
    to_move = game.seats.get(index=game.to_move).user
    assert [m.to for m in mail.outbox] == [[to_move.email]]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs row locks: SQLite ignores select_for_update and serialises whole writes",
)
def test_two_matchmaker_runs_at_once_seat_nobody_twice(make_user: Any, make_league: Any) -> None:
    for attempt in range(4):
        league = make_league(name=f"Race {attempt}", min_players=2, max_players=4)
        if attempt % 2:  # the season exists already: the race is about seats alone
            assert matchmaker_pass(now=timezone.now()) == 0
            assert Season.objects.filter(league=league).exists()
        users = join_many(league, make_user, [1400 + 10 * i for i in range(10)], max_games=1)
        barrier = threading.Barrier(2)
        results: list[int] = []
        errors: list[BaseException] = []

        def run(barrier: threading.Barrier = barrier, results: list[int] = results,
                errors: list[BaseException] = errors) -> None:  # fmt: skip
            try:
                barrier.wait()
                results.append(matchmaker_pass(now=timezone.now()))
            except BaseException as exc:  # reported below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        assert not errors
        assert sorted(results) == [0, 3]  # the run that waited for the lock finds nobody
        assert Game.objects.filter(season_link__season__league=league).count() == 3
        for user in users:
            assert unfinished_count(league, user) == 1
        assert Season.objects.filter(league=league).count() == 1


# --- seasons and standings ------------------------------------------------------------------------


def test_place_points_split_ties() -> None:
    assert [place_points(4, p) for p in (1, 2, 3, 4)] == [3, 2, 1, 0]
    assert place_points(4, 1, tied=2) == 2.5  # (3 + 2) / 2
    assert place_points(4, 3, tied=2) == 0.5
    assert place_points(3, 1, tied=3) == 1.0
    assert place_points(2, 1, tied=2) == 0.5


def finished_game(season: Season, players: list[User], places: list[int]) -> Game:
    game = game_create(creator=players[0], kind=season.league.kind, player_count=len(players))
    for user in players[1:]:
        game_join(game_id=game.pk, user=user)
    SeasonGame.objects.create(season=season, game=game)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED, finished_at=timezone.now())
    for user, place in zip(players, places, strict=True):
        Seat.objects.filter(game=game, user=user).update(place=place, score=10 - place)
    return game


@pytest.mark.django_db
def test_standings_points_by_place_with_ties(make_user: Any, make_league: Any) -> None:
    league = make_league()
    season = Season.objects.create(league=league, number=1, starts_at=NOW, ends_at=NOW)
    a, b, c, d, e = (make_user(n) for n in ("ada", "bob", "cyd", "dan", "eve"))
    finished_game(season, [a, b, c, d], [1, 1, 3, 4])  # 2.5, 2.5, 1, 0
    finished_game(season, [c, e], [1, 2])  # 1, 0
    finished_game(season, [d, e, a], [1, 1, 1])  # 1 each
    running = game_create(creator=b, kind=league.kind, player_count=2)
    game_join(game_id=running.pk, user=e)
    SeasonGame.objects.create(season=season, game=running)
    other = Season.objects.create(league=league, number=2, starts_at=NOW, ends_at=NOW)
    finished_game(other, [e, a], [1, 2])  # another season: not counted

    rows = standings(season)

    table = [(r.rank, r.name, r.points, r.games, r.wins, r.running) for r in rows]
    assert table == [
        (1, "ada", 3.5, 2, 2, 0),
        (2, "bob", 2.5, 1, 1, 1),
        (3, "cyd", 2.0, 2, 1, 0),
        (4, "dan", 1.0, 2, 1, 0),
        (4, "eve", 1.0, 2, 1, 1),
    ]


@pytest.mark.django_db
def test_standings_rank_fewer_games_first_on_equal_points(make_user: Any, make_league: Any) -> None:
    league = make_league()
    season = Season.objects.create(league=league, number=1, starts_at=NOW, ends_at=NOW)
    a, b, c = make_user("amy"), make_user("ben"), make_user("cat")
    finished_game(season, [a, b], [1, 2])
    finished_game(season, [b, c], [1, 2])
    finished_game(season, [c, a], [2, 1])
    finished_game(season, [c, b], [1, 2])
    rows = standings(season)
    assert [(r.name, r.points, r.games) for r in rows] == [
        ("amy", 2.0, 2), ("ben", 1.0, 3), ("cat", 1.0, 3),
    ]  # fmt: skip
    assert [r.rank for r in rows] == [1, 2, 2]


def play_moves(game: Game, moves: int, seed: int) -> None:
    """The seats to move play RandomBot's choices, as their players, through action_submit."""
    bot = RandomBot(seed)
    for _ in range(moves):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            return
        seat = game.seats.get(index=game.to_move)
        action = bot.choose(engine_state(game))
        action_submit(
            game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq, user=seat.user
        )


@pytest.mark.django_db
def test_season_end_decides_unfinished_games_and_opens_the_next(
    make_user: Any, make_league: Any, seeded: None
) -> None:
    league = make_league(min_players=2, max_players=2, season_days=30)
    join_many(league, make_user, [1500, 1510, 1700, 1710])
    start = timezone.now()
    assert matchmaker_pass(now=start) == 2
    season = Season.objects.get(league=league)
    games = list(Game.objects.filter(season_link__season=season).order_by("pk"))
    play_moves(games[0], 40, seed=1)
    play_moves(games[1], 25, seed=2)
    expected = {g.pk: engine_state(Game.objects.get(pk=g.pk)).scores() for g in games}

    assert seasons_close_due(now=season.ends_at - timedelta(seconds=1)) == 0
    end = season.ends_at + timedelta(minutes=5)
    assert matchmaker_pass(now=end) == 0  # the season is over: nobody is seated into it
    assert seasons_close_due(now=end) == 1

    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    for game in games:
        game.refresh_from_db()
        assert game.status == GameStatus.FINISHED and game.finished_at == end
        seats = list(game.seats.order_by("index"))
        assert [s.score for s in seats] == expected[game.pk]
        for s in seats:
            assert s.place == 1 + sum(1 for o in seats if o.score > s.score)
    assert sum(r.points for r in standings(season)) == 2  # two 2-player games: 1 point each
    following = Season.objects.get(league=league, status=Season.Status.RUNNING)
    assert (following.number, following.starts_at) == (2, end)
    assert following.ends_at == end + timedelta(days=30)

    assert seasons_close_due(now=end) == 0  # idempotent
    assert matchmaker_pass(now=end) == 2  # everyone waits again: season 2 games
    assert SeasonGame.objects.filter(season=following).count() == 2


@pytest.mark.django_db
def test_closing_the_season_of_an_inactive_league_opens_none(
    make_user: Any, make_league: Any
) -> None:
    league = make_league()
    season = Season.objects.create(league=league, number=1, starts_at=NOW, ends_at=NOW)
    League.objects.filter(pk=league.pk).update(active=False)
    assert seasons_close_due(now=NOW + timedelta(seconds=1)) == 1
    assert list(league.seasons.values_list("number", "status")) == [(1, "finished")]
    # reactivated: the matchmaker opens season 2
    League.objects.filter(pk=league.pk).update(active=True)
    join_many(league, make_user, [1500, 1500])
    season.refresh_from_db()
    assert matchmaker_pass(now=NOW + timedelta(seconds=2)) == 1
    assert league.seasons.get(status=Season.Status.RUNNING).number == 2


# --- a league season of bots ----------------------------------------------------------------------


def bots_step(league: League, rng: random.Random) -> int:
    """Every running league game: the seat to move plays RandomBot's choice as its player."""
    played = 0
    running = Game.objects.filter(season_link__season__league=league, status=GameStatus.RUNNING)
    for game in running.order_by("pk"):
        seat = game.seats.select_related("user").get(index=game.to_move)
        action = RandomBot(rng.getrandbits(32)).choose(engine_state(game))
        action_submit(
            game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq, user=seat.user
        )
        played += 1
    return played


def spread(table: frozenset[int], ratings: dict[int, float]) -> float:
    values = [ratings[u] for u in table]
    return max(values) - min(values)


def first_wave(games: Any) -> list[frozenset[int]]:
    """The tables of a pass up to the first one with a member seated before in the pass: the
    first wave, in which the matchmaker chose among every waiting member."""
    wave: list[frozenset[int]] = []
    for game in games.order_by("pk"):
        table = frozenset(game.seats.values_list("user_id", flat=True))
        if any(table & t for t in wave):
            break
        wave.append(table)
    return wave


def last_tables(league: League) -> dict[int, frozenset[int]]:
    """Each member's latest league table."""
    last: dict[int, frozenset[int]] = {}
    for game in Game.objects.filter(season_link__season__league=league).order_by("pk"):
        table = frozenset(game.seats.values_list("user_id", flat=True))
        for user_id in table:
            last[user_id] = table
    return last


def renewed(league: League) -> bool:
    """A game was played to its end and the matchmaker has seated its players again."""
    games = Game.objects.filter(season_link__season__league=league)
    first = games.filter(status=GameStatus.FINISHED).order_by("finished_at").first()
    return first is not None and games.filter(created_at__gt=first.finished_at).exists()


@pytest.mark.django_db
def test_a_league_season_of_bots(make_user: Any, make_league: Any, seeded: None) -> None:
    """Members whose moves RandomBot chooses, through the services a person uses, over three
    seasons and many matchmaker passes: nobody is ever above their limit, every pass seats
    what the matchmaking asks for, tables are closer in rating than tables drawn at random
    from the same players, and nobody meets their last table again while others wait."""
    league = make_league(min_players=2, max_players=3, season_days=7)
    rng = random.Random(11)
    ratings_list = [1150 + 75 * i for i in range(6)]
    limits = [1, 2, 1, 1, 2, 1]
    users = [rated(make_user, r) for r in ratings_list]
    for user, limit in zip(users, limits, strict=True):
        league_join(league_id=league.pk, user=user, max_games=limit)
    ratings = {u.pk: r for u, r in zip(users, ratings_list, strict=True)}
    limit_of = {u.pk: limit for u, limit in zip(users, limits, strict=True)}

    def within_limits() -> None:
        counts = Counter(
            Seat.objects.filter(
                game__season_link__season__league=league, game__status__in=UNFINISHED
            ).values_list("user_id", flat=True)
        )
        assert all(counts[user_id] <= limit for user_id, limit in limit_of.items()), counts

    ours: list[float] = []
    drawn: list[float] = []
    passes_with_games = 0
    clock = timezone.now()
    for number in (1, 2, 3):
        # season 1 runs until a game played to its end was followed by a new one; 2 and 3 are
        # short: their games are decided by the scores at the season's end
        for step in range(600 if number == 1 else 10):
            if step % 10 == 0 and number == 1 and renewed(league):
                break
            if step % 10 == 0:
                waiting = waiting_members(league)
                expected = match_tables(waiting, league.min_players, league.max_players)
                before = last_tables(league)
                known = set(SeasonGame.objects.values_list("game_id", flat=True))
                created = matchmaker_pass(now=clock)
                new = Game.objects.filter(season_link__season__league=league)
                tables = [
                    frozenset(g.seats.values_list("user_id", flat=True))
                    for g in new.exclude(pk__in=known)
                ]
                assert created == len(tables)
                assert Counter(tables) == Counter(frozenset(t) for t in expected)
                within_limits()
                passes_with_games += bool(created)
                if step == 0 and number > 1:
                    # everyone waits; in the first wave (everyone, 3 + 3) nobody meets their
                    # last table again (the second wave, the two with a limit of 2, may)
                    assert len(waiting) == len(users)
                    everyone = [t for t in tables if len(t) == 3]
                    assert len(everyone) == 2
                    assert all(before[u] != t for t in everyone for u in t)
                wave = first_wave(new.exclude(pk__in=known))
                if len(wave) > 1:  # a choice was made: compare it with chance
                    ours += [spread(t, ratings) for t in wave]
                    seated = [u for t in wave for u in t]
                    for _ in range(200):
                        rng.shuffle(seated)
                        start = 0
                        for t in wave:
                            drawn.append(spread(frozenset(seated[start : start + len(t)]), ratings))
                            start += len(t)
            bots_step(league, rng)
            within_limits()
        season = Season.objects.get(league=league, number=number)
        if number == 1:
            assert renewed(league), "no game of season 1 was played to its end"
        clock = season.ends_at
        assert seasons_close_due(now=clock) == 1
        assert not Game.objects.filter(season_link__season=season, status__in=UNFINISHED).exists()
        rows = standings(season)
        assert {r.user_id for r in rows} == set(ratings)
        assert sum(r.games for r in rows) == sum(
            g.player_count for g in Game.objects.filter(season_link__season=season)
        )
        assert Season.objects.get(league=league, status=Season.Status.RUNNING).number == number + 1

    assert passes_with_games >= 4
    assert statistics.mean(ours) < 0.7 * statistics.mean(drawn)


# --- tasks, pages and the admin -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_periodic_tasks_call_the_services(make_user: Any, make_league: Any) -> None:
    from tournaments import tasks

    league = make_league()
    join_many(league, make_user, [1500, 1500])
    assert tasks.run_matchmaker.delay().get() == 1
    Season.objects.filter(league=league).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert tasks.close_seasons.delay().get() == 1


def logged_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.mark.django_db
def test_league_list_and_nav_link(client: Client, make_league: Any, make_user: Any) -> None:
    league = make_league(name="Friday cards")
    make_league(name="Closed one", active=False)
    anna = make_user()
    league_join(league_id=league.pk, user=anna)

    page = client.get(reverse("league_list"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Friday cards" in html and "Closed one" not in html
    assert reverse("league_detail", args=[league.pk]) in html
    assert f'href="{reverse("league_list")}" aria-current="page"' in html
    assert "1 member" in html

    html = logged_in(client, anna).get(reverse("league_list")).content.decode()
    assert "You are a member" in html


@pytest.mark.django_db
def test_league_page_standings_and_past_seasons(
    client: Client, make_league: Any, make_user: Any
) -> None:
    league = make_league(name="Board league", kind="keltis", rating_min=1000)
    old = Season.objects.create(
        league=league, number=1, starts_at=NOW, ends_at=NOW, status=Season.Status.FINISHED
    )
    current = Season.objects.create(league=league, number=2, starts_at=NOW, ends_at=NOW)
    a, b = make_user("ada"), make_user("bob")
    finished_game(old, [a, b], [2, 1])
    finished_game(current, [a, b], [1, 1])

    page = client.get(reverse("league_detail", args=[league.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Season 2" in html and "1000+" in html
    assert [(r.name, r.points) for r in page.context["rows"]] == [("ada", 0.5), ("bob", 0.5)]
    assert '?season=1">season 1</a>' in html
    assert "Log in to join" in html

    past = client.get(reverse("league_detail", args=[league.pk]), {"season": 1})
    assert [(r.name, r.points) for r in past.context["rows"]] == [("bob", 1.0), ("ada", 0.0)]
    assert client.get(reverse("league_detail", args=[league.pk]), {"season": 9}).status_code == 404
    assert client.get(reverse("league_detail", args=[league.pk + 9])).status_code == 404


@pytest.mark.django_db
def test_join_settings_and_leave_through_the_page(
    client: Client, make_league: Any, make_user: Any
) -> None:
    league = make_league()
    anna = make_user()
    client = logged_in(client, anna)
    detail = reverse("league_detail", args=[league.pk])
    assert (
        f'action="{reverse("league_join", args=[league.pk])}"'
        in client.get(detail).content.decode()
    )

    joined = client.post(reverse("league_join", args=[league.pk]), {"max_games": "3"}, follow=True)
    assert joined.redirect_chain[-1][0] == detail
    assert any("You joined" in m for m in messages_of(joined))
    assert LeagueMember.objects.get(league=league, user=anna).max_games == 3
    assert "up to 3 league games at once" in joined.content.decode()

    again = client.post(reverse("league_join", args=[league.pk]), {"max_games": "2"}, follow=True)
    assert any("already" in m for m in messages_of(again))

    bad = client.post(reverse("league_settings", args=[league.pk]), {"max_games": "0"}, follow=True)
    assert any("between 1 and 20" in m for m in messages_of(bad))
    done = client.post(
        reverse("league_settings", args=[league.pk]), {"max_games": "1"}, follow=True
    )
    assert any("up to 1 game at once" in m for m in messages_of(done))
    assert LeagueMember.objects.get(league=league, user=anna).max_games == 1

    left = client.post(reverse("league_leave", args=[league.pk]), follow=True)
    assert any("You left" in m for m in messages_of(left))
    assert not LeagueMember.objects.get(league=league, user=anna).active
    left_again = client.post(reverse("league_leave", args=[league.pk]), follow=True)
    assert any("not a member" in m for m in messages_of(left_again))
    assert client.post(reverse("league_leave", args=[league.pk + 9])).status_code == 404
    assert client.get(reverse("league_join", args=[league.pk])).status_code == 405


@pytest.mark.django_db
def test_league_page_for_a_player_outside_the_band(
    client: Client, make_league: Any, make_user: Any
) -> None:
    league = make_league(rating_max=1400)
    html = (
        logged_in(client, rated(make_user, 1500))
        .get(reverse("league_detail", args=[league.pk]))
        .content.decode()
    )
    assert "outside this league's band" in html
    assert reverse("league_join", args=[league.pk]) not in html


@pytest.mark.django_db
def test_league_page_tells_a_member_rated_out_of_the_band(
    client: Client, make_league: Any, make_user: Any
) -> None:
    league = make_league(rating_max=1600)
    anna = rated(make_user, 1500)
    league_join(league_id=league.pk, user=anna)
    detail = reverse("league_detail", args=[league.pk])
    assert "no new game" not in logged_in(client, anna).get(detail).content.decode()
    Rating.objects.filter(user=anna).update(rating=1650)
    html = client.get(detail).content.decode()
    assert "Your rating (1650) is now outside this league's band" in html


@pytest.mark.django_db
def test_posts_of_anonymous_visitors_go_to_login(client: Client, make_league: Any) -> None:
    league = make_league()
    for name in ("league_join", "league_leave", "league_settings"):
        response = client.post(reverse(name, args=[league.pk]))
        assert response.status_code == 302 and "login" in response["Location"]
    assert not LeagueMember.objects.exists()


@pytest.fixture
def admin_client(client: Client, make_user: Any) -> Client:
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


@pytest.mark.django_db
def test_admin_pages_of_leagues(admin_client: Client, make_league: Any, make_user: Any) -> None:
    league = make_league()
    join_many(league, make_user, [1500, 1500])
    matchmaker_pass(now=NOW)
    for model in ("league", "season", "leaguemember", "seasongame"):
        assert admin_client.get(reverse(f"admin:tournaments_{model}_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:tournaments_league_add")).status_code == 200
    assert admin_client.get(reverse("admin:tournaments_season_add")).status_code == 403


@pytest.mark.django_db
def test_admin_refuses_a_league_the_matchmaker_could_not_run(admin_client: Client) -> None:
    data = {
        "name": "Bad", "kind": "keltis-cards", "days_per_move": "3", "bank_increment_hours": "0",
        "bank_cap_hours": "0", "options": '{"nope": true}', "min_players": "3",
        "max_players": "2", "rating_min": "1600", "rating_max": "1500", "season_days": "90",
        "active": "on", "created_at_0": "2026-01-01", "created_at_1": "00:00:00",
        "seasons-TOTAL_FORMS": "0", "seasons-INITIAL_FORMS": "0",
    }  # fmt: skip
    response = admin_client.post(reverse("admin:tournaments_league_add"), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert {"options", "max_players", "rating_max"} <= set(errors)
    data.update({"options": "{}", "min_players": "2", "rating_max": "1700"})
    response = admin_client.post(reverse("admin:tournaments_league_add"), data)
    assert response.status_code == 302
    assert League.objects.get(name="Bad").options == {"closing_may_open_row": False}


@pytest.mark.django_db
def test_reading_the_waiting_members_takes_a_fixed_number_of_queries(
    make_user: Any, make_league: Any
) -> None:
    league = make_league(min_players=2, max_players=2)
    counts = []
    for extra in (2, 8):
        join_many(league, make_user, [1500 + i for i in range(extra)], max_games=2)
        matchmaker_pass(now=NOW)
        finish_all(league)
        with CaptureQueriesContext(connection) as queries:
            waiting_members(league)
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6  # the 6th: the blocks among the members
