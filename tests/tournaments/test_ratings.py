"""Rating finished games: tournaments.ratings.rate_game and the catch-up query.

Most games here are built directly (seats, events, places) so that each test states exactly the
table it rates; the end-to-end tests play whole games with a random bot through the same
services a person's moves take.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from games import services, timeouts
from games.engine.bots import RandomBot
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tournaments import rating_selectors, ratings, tasks
from tournaments.models import Rating, RatingChange

pytestmark = pytest.mark.django_db



def table(make_user: Callable[..., User], n: int, *, kind: str = "keltis") -> tuple[Game, list]:
    """A running game of ``n`` people (everyone joined, nobody moved yet)."""
    users = [make_user() for _ in range(n)]
    game = game_create(creator=users[0], kind=kind, player_count=n)
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING and game.rated
    return game, users


def moved(game: Game, seats: Sequence[int], source: str = EventSource.PLAYER) -> None:
    """Append one event per seat (the append-only log allows inserts)."""
    last = Event.objects.filter(game=game).count()
    for offset, seat in enumerate(seats, start=1):
        Event.objects.create(game=game, seq=last + offset, seat=seat, action="x", source=source)


def finish(game: Game, places: Sequence[int], retired: Sequence[int] = ()) -> None:
    """Mark the game finished with these places (as games.services stores them)."""
    for index, place in enumerate(places):
        Seat.objects.filter(game=game, index=index).update(
            place=place, score=10 * (len(places) - place), retired=index in retired
        )
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.FINISHED, finished_at=timezone.now(), to_move=None, deadline=None
    )


def finished_game(
    make_user: Callable[..., User], places: Sequence[int], *, kind: str = "keltis"
) -> tuple[Game, list]:
    game, users = table(make_user, len(places), kind=kind)
    moved(game, range(len(places)))
    finish(game, places)
    return game, users


def rating_of(user: Any, kind: str = "keltis") -> Rating:
    return Rating.objects.get(user=user, kind=kind)


def pairwise(ratings: Sequence[float], places: Sequence[int], k: float) -> list[float]:
    """The issue's formula written out again, independently of tournaments.elo."""
    n = len(ratings)
    new = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i != j:
                s = 1.0 if places[i] < places[j] else 0.0 if places[i] > places[j] else 0.5
                e = 1 / (1 + 10 ** ((ratings[j] - ratings[i]) / 400))
                total += s - e
        new.append(ratings[i] + k * (2 / n) * total)
    return new


# -- the rating of one game ----------------------------------------------------------------------
def test_a_two_player_game_is_standard_elo(make_user: Any) -> None:
    game, (anna, bela) = finished_game(make_user, [1, 2])
    assert ratings.rate_game(game_id=game.pk) is True
    a, b = rating_of(anna), rating_of(bela)
    assert (a.rating, b.rating) == (pytest.approx(1520), pytest.approx(1480))
    assert (a.games, b.games) == (1, 1)
    assert (a.highest, b.highest) == (pytest.approx(1520), pytest.approx(1500))
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert changes[anna.pk].before == 1500 and changes[anna.pk].after == pytest.approx(1520)
    assert changes[bela.pk].before == 1500 and changes[bela.pk].after == pytest.approx(1480)
    assert {c.k for c in changes.values()} == {40}
    assert (changes[anna.pk].place, changes[bela.pk].place) == (1, 2)
    assert {c.kind for c in changes.values()} == {"keltis"}


def test_a_three_player_game_with_a_tie_for_first(make_user: Any) -> None:
    game, users = finished_game(make_user, [1, 1, 3])
    assert ratings.rate_game(game_id=game.pk)
    after = [rating_of(u).rating for u in users]
    # each of the tied winners: a draw (0.5 - 0.5) and a win (1 - 0.5): 40 * 2/3 * 0.5
    assert after == [
        pytest.approx(1500 + 40 / 3),
        pytest.approx(1500 + 40 / 3),
        pytest.approx(1500 - 80 / 3),
    ]
    assert sum(after) == pytest.approx(3 * 1500)


def test_a_four_player_game_with_a_tie_and_different_ratings(make_user: Any) -> None:
    game, users = finished_game(make_user, [2, 1, 2, 4])
    before = [1500.0, 1620.0, 1410.0, 1700.0]
    for user, value in zip(users, before, strict=True):
        Rating.objects.create(user=user, kind="keltis", rating=value, highest=value, games=3)
    assert ratings.rate_game(game_id=game.pk)
    after = [rating_of(u).rating for u in users]
    assert after == pytest.approx(pairwise(before, [2, 1, 2, 4], 40))
    assert sum(after) == pytest.approx(sum(before))  # one K for all: points only move around
    # the highest rating only ever grows
    assert rating_of(users[3]).highest == 1700 and rating_of(users[2]).highest > 1410


def test_the_card_game_is_rated_apart(make_user: Any) -> None:
    game, (anna, bela) = finished_game(make_user, [1, 2], kind="keltis-cards")
    Rating.objects.create(user=anna, kind="keltis", rating=1800, highest=1800, games=40)
    assert ratings.rate_game(game_id=game.pk)
    assert rating_of(anna, "keltis-cards").rating == pytest.approx(1520)
    assert rating_of(anna, "keltis").rating == 1800 and rating_of(anna, "keltis").games == 40
    assert not Rating.objects.filter(user=bela, kind="keltis").exists()


def test_a_retired_seat_is_rated_last_even_with_the_best_score(make_user: Any) -> None:
    """games.services stores the places: retired seats after every active one. Rating reads
    them: seat 0 had the most points but timed out for good, so it lost to both others."""
    game, users = table(make_user, 3)
    moved(game, [0, 1, 2])
    Seat.objects.filter(game=game, index=0).update(retired=True)

    class Scores:  # the engine's final scores (the engine never ended this game itself)
        def scores(self) -> list[int]:
            return [50, 10, 20]

    game.refresh_from_db()
    services.game_finish_early(game, Scores(), timezone.now())
    assert [s.place for s in game.seats.order_by("index")] == [3, 2, 1]
    assert ratings.rate_game(game_id=game.pk)
    after = [rating_of(u).rating for u in users]
    assert after == pytest.approx(pairwise([1500] * 3, [3, 2, 1], 40))
    assert after[0] < after[1] < after[2]


def play_turn(game: Game, seat: int, user: Any, bot: RandomBot) -> None:
    """Play the seat's whole turn as the player (source "player")."""
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING or game.to_move != seat:
            return
        action = bot.choose(engine_state(game))
        action_submit(game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=user)


def time_out(game: Game) -> str:
    game.refresh_from_db()
    return timeouts.timeout_apply(game_id=game.pk, now=game.deadline + timedelta(seconds=1))


def test_a_seat_retired_by_timeouts_loses_the_game(make_user: Any) -> None:
    """The real path: both move, then bela times out until retired and the game ends."""
    game, (anna, bela) = table(make_user, 2)
    bot = RandomBot(11)
    play_turn(game, 0, anna, bot)
    play_turn(game, 1, bela, bot)
    outcome = ""
    for _ in range(game.max_timeouts):
        play_turn(game, 0, anna, bot)
        outcome = time_out(game)
    assert outcome == "ended"
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    assert Seat.objects.get(game=game, index=1).retired
    assert ratings.rate_game(game_id=game.pk)
    assert rating_of(anna).rating == pytest.approx(1520)
    assert rating_of(bela).rating == pytest.approx(1480)


def test_a_game_where_only_one_person_ever_moved_is_not_rated(make_user: Any) -> None:
    """Bela never moved herself: her turns were played by the timeout policy, then she retired."""
    game, (anna, _bela) = table(make_user, 2)
    bot = RandomBot(5)
    outcome = ""
    for _ in range(game.max_timeouts):
        play_turn(game, 0, anna, bot)
        outcome = time_out(game)
    assert outcome == "ended"
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.rated
    assert Event.objects.filter(game=game, seat=1, source=EventSource.TIMEOUT).exists()
    assert ratings.rate_game(game_id=game.pk) is False
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert game.pk not in ratings.unrated_finished_games()


def test_two_movers_of_four_are_enough(make_user: Any) -> None:
    game, _users = table(make_user, 4)
    moved(game, [0, 1])
    moved(game, [2, 3], source=EventSource.TIMEOUT)
    finish(game, [1, 2, 3, 4], retired=[2, 3])
    assert ratings.rate_game(game_id=game.pk)
    assert RatingChange.objects.filter(game=game).count() == 4


def test_one_person_with_bots_is_not_rated(make_user: Any) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["random"])
    assert game.rated is False
    moved(game, [0, 1])
    finish(game, [1, 2])
    assert ratings.rate_game(game_id=game.pk) is False
    assert not Rating.objects.exists()


def test_two_people_and_a_bot_are_rated_against_each_other(make_user: Any) -> None:
    """The bot won; of the two people bela (second) beat anna (third): their duel is rated,
    as if they had played it alone, and the bot gets no rating."""
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["greedy"])
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING and game.rated
    Rating.objects.create(user=anna, kind="keltis", rating=1600, highest=1600, games=40)
    Rating.objects.create(user=bela, kind="keltis", rating=1450, highest=1500, games=40)
    moved(game, [0, 1, 2])
    finish(game, [3, 1, 2])
    assert ratings.rate_game(game_id=game.pk) is True
    # the pair's relative placing: bela first of the two, anna second; K 20 (established)
    expected = pairwise([1600, 1450], [2, 1], 20)
    assert [rating_of(anna).rating, rating_of(bela).rating] == pytest.approx(expected)
    assert rating_of(bela).rating == pytest.approx(1450 + 20 * (1 - 1 / (1 + 10 ** (150 / 400))))
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {anna.pk, bela.pk}
    assert (changes[anna.pk].place, changes[bela.pk].place) == (3, 2)  # the places at the table
    assert Rating.objects.count() == 2


def test_a_table_of_three_people_and_a_bot_rates_the_three(make_user: Any) -> None:
    users = [make_user() for _ in range(3)]
    game = game_create(creator=users[0], kind="keltis-cards", player_count=4, bots=["random"])
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    moved(game, [0, 2, 3])
    finish(game, [4, 1, 2, 2])  # seat 1 is the bot: among the people anna is last, two tie
    assert ratings.rate_game(game_id=game.pk)
    after = [rating_of(u, "keltis-cards").rating for u in users]
    assert after == pytest.approx(pairwise([1500] * 3, [2, 1, 1], 40))
    assert game.pk not in ratings.unrated_finished_games()


def test_unrated_games_between_people_are_not_rated(make_user: Any) -> None:
    game, _ = finished_game(make_user, [1, 2])
    Game.objects.filter(pk=game.pk).update(rated=False)
    assert ratings.rate_game(game_id=game.pk) is False
    assert game.pk not in ratings.unrated_finished_games()


def test_only_finished_games_are_rated(make_user: Any) -> None:
    game, _ = table(make_user, 2)
    moved(game, [0, 1])
    assert ratings.rate_game(game_id=game.pk) is False
    assert ratings.rate_game(game_id=10**9) is False  # no such game
    assert not RatingChange.objects.exists()


def test_rating_a_game_twice_rates_it_once(make_user: Any) -> None:
    game, (anna, _bela) = finished_game(make_user, [1, 2])
    assert ratings.rate_game(game_id=game.pk) is True
    assert ratings.rate_game(game_id=game.pk) is False
    assert RatingChange.objects.filter(game=game).count() == 2
    assert rating_of(anna).rating == pytest.approx(1520) and rating_of(anna).games == 1


# -- K by experience -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("games", "rating", "highest", "k"),
    [
        (0, 1500, 1500, 40),
        (29, 2500, 2500, 40),  # still provisional: K 40 even at the top
        (30, 1700, 1700, 20),
        (30, 2399, 2399, 20),
        (30, 2400, 2400, 10),
        (80, 2300, 2450, 10),  # once at 2400, K stays 10 after a fall
    ],
)
def test_k_by_experience_and_the_top_threshold(
    make_user: Any, games: int, rating: float, highest: float, k: float
) -> None:
    game, (anna, bela) = finished_game(make_user, [1, 2])
    Rating.objects.create(user=anna, kind="keltis", rating=rating, highest=highest, games=games)
    Rating.objects.create(user=bela, kind="keltis", rating=rating, highest=rating, games=100)
    assert ratings.rate_game(game_id=game.pk)
    change = RatingChange.objects.get(game=game, user=anna)
    assert change.k == k
    assert change.after == pytest.approx(rating + k * 0.5)  # equal ratings: expected 0.5
    assert rating_of(anna).games == games + 1


def test_k_comes_from_the_settings(make_user: Any, settings: Any) -> None:
    settings.ELO_K_NEW, settings.ELO_K_REGULAR, settings.ELO_PROVISIONAL_GAMES = 32, 16, 5
    game, (anna, bela) = finished_game(make_user, [1, 2])
    Rating.objects.create(user=bela, kind="keltis", games=5)
    assert ratings.rate_game(game_id=game.pk)
    assert rating_of(anna).rating == pytest.approx(1516)  # K 32, new
    assert rating_of(bela).rating == pytest.approx(1492)  # K 16 after 5 games


# -- catching up ---------------------------------------------------------------------------------
def test_unrated_finished_games_lists_what_is_left(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    first, _ = finished_game(make_user, [1, 2])
    second, _ = finished_game(make_user, [2, 1])
    running, _ = table(make_user, 2)
    moved(running, [0, 1])
    with django_assert_num_queries(1):
        assert ratings.unrated_finished_games() == [first.pk, second.pk]
    assert ratings.unrated_finished_games(limit=1) == [first.pk]
    ratings.rate_game(game_id=first.pk)
    assert ratings.unrated_finished_games() == [second.pk]
    assert tasks.rate_finished_games() == 1
    assert ratings.unrated_finished_games() == []


def test_histories_chain_game_after_game(make_user: Any) -> None:
    anna, bela, cleo = make_user(), make_user(), make_user()
    for users, places in (([anna, bela], [1, 2]), ([cleo, anna], [1, 2]), ([anna, cleo], [1, 1])):
        game = game_create(creator=users[0], kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=users[1])
        moved(game, [0, 1])
        finish(game, places)
        assert ratings.rate_game(game_id=game.pk)
    history = list(RatingChange.objects.filter(user=anna).order_by("created_at", "pk"))
    assert len(history) == 3 and history[0].before == 1500
    for previous, change in itertools.pairwise(history):
        assert change.before == previous.after
    assert rating_of(anna).rating == history[-1].after and rating_of(anna).games == 3
    assert rating_selectors.rating_history(anna, "keltis") == history
    assert rating_selectors.rating_history(anna, "keltis-cards") == []


# -- concurrency (row locks: PostgreSQL) ---------------------------------------------------------
def run_at_once(*calls: Callable[[], Any]) -> list[Any]:
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except Exception as exc:  # reported by the assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


needs_row_locks = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (CI runs it)"
)


@pytest.mark.django_db(transaction=True)
@needs_row_locks
def test_two_workers_rating_one_game_rate_it_once(make_user: Any) -> None:
    for _round in range(5):
        game, (anna, _bela) = finished_game(make_user, [1, 2])
        results = run_at_once(*[lambda g=game.pk: ratings.rate_game(game_id=g)] * 2)
        assert not [r for r in results if isinstance(r, Exception)], results
        assert sorted(results) == [False, True]
        assert RatingChange.objects.filter(game=game).count() == 2
        assert rating_of(anna).rating == pytest.approx(1520) and rating_of(anna).games == 1


@pytest.mark.django_db(transaction=True)
@needs_row_locks
def test_two_games_of_one_player_rated_at_once_both_count(make_user: Any) -> None:
    """Both games create anna's missing rating row and update it: no lost update, no error."""
    anna, bela, cleo = make_user(), make_user(), make_user()
    games = []
    for other in (bela, cleo):
        game = game_create(creator=anna, kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=other)
        moved(game, [0, 1])
        finish(game, [1, 2])
        games.append(game.pk)
    results = run_at_once(*[lambda g=g: ratings.rate_game(game_id=g) for g in games])
    assert results == [True, True]
    row = rating_of(anna)
    assert row.games == 2
    first, second = RatingChange.objects.filter(user=anna).order_by("created_at", "pk")
    assert first.before == 1500 and second.before == first.after
    # whichever game came first: 1500 -> 1520, then a win at 1520 against 1500
    expected = 1520 + 40 * (1 - 1 / (1 + 10 ** (-20 / 400)))
    assert row.rating == second.after == pytest.approx(expected)


# -- end to end: the last move of a game rates it --------------------------------------------------
def play_until_the_last_action(game: Game, users: list, bot: RandomBot) -> tuple[int, str]:
    """Play every action of a whole game but the last; return the last one (seat, action)."""
    while True:
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING
        engine = engine_state(game)
        seat = game.to_move
        action = bot.choose(engine)
        engine.apply(action, player=seat)
        if engine.finished:
            return seat, action
        action_submit(
            game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=users[seat]
        )


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_last_move_rates_the_game_through_the_finished_hook(
    make_user: Any, django_capture_on_commit_callbacks: Any, kind: str
) -> None:
    assert tasks.game_finished in services.FINISHED_HOOKS
    game, users = table(make_user, 3, kind=kind)
    seat, action = play_until_the_last_action(game, users, RandomBot(3))
    assert not RatingChange.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        action_submit(game_id=game.pk, seat=seat, action=action, user=users[seat])
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {u.pk for u in users}
    seats = {s.user_id: s for s in game.seats.all()}
    for user in users:
        assert changes[user.pk].place == seats[user.pk].place
        assert rating_of(user, kind).rating == pytest.approx(changes[user.pk].after)
    places = [seats[u.pk].place for u in users]
    assert [rating_of(u, kind).rating for u in users] == pytest.approx(
        pairwise([1500] * 3, places, 40)
    )
    assert ratings.rate_game(game_id=game.pk) is False  # the catch-up finds nothing left


def test_a_game_played_to_its_end_is_rated(make_user: Any) -> None:
    """The same whole game, rated by calling the service (the hook is not run here)."""
    game, users = table(make_user, 2)
    seat, action = play_until_the_last_action(game, users, RandomBot(8))
    action_submit(game_id=game.pk, seat=seat, action=action, user=users[seat])
    assert ratings.unrated_finished_games() == [game.pk]
    assert ratings.rate_game(game_id=game.pk)
    winner = min(game.seats.all(), key=lambda s: s.place)
    assert rating_of(winner.user).rating >= 1500
