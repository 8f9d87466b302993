"""Deadlines with a moved clock (time-machine): reminders, timeouts, retirement, vacations,
the time bank, and a move arriving just before its deadline."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from accounts.models import Vacation
from games import timeouts
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from notifications.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def duel(make_user: Any, **create: Any) -> tuple[Game, Any, Any]:
    anna, bela = make_user(), make_user()
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind="keltis", player_count=2, **create)
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def play_turn(game: Game, user: Any) -> None:
    """The seat to move plays its whole turn (lay or discard, clover, draw)."""
    seat = game.to_move
    while True:
        game.refresh_from_db()
        if game.to_move != seat or game.status != GameStatus.RUNNING:
            return
        action = engine_state(game).legal()[0]
        action_submit(
            game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=user
        )


def kinds(game: Game, kind: str) -> list[str]:
    return list(
        Notification.objects.filter(game=game, kind=kind).order_by("pk").values_list(
            "key", flat=True
        )
    )


def test_a_turn_gets_a_deadline_a_reminder_time_and_an_email(make_user: Any) -> None:
    game, _, _ = duel(make_user, days_per_move=3)
    assert game.deadline == START + timedelta(days=3)
    assert game.reminder_at == game.deadline - timedelta(hours=24)
    assert kinds(game, NotificationKind.TURN) == [f"turn:{game.pk}:0:0"]


def test_reminders_24h_and_2h_before_the_deadline_once_each(make_user: Any) -> None:
    game, _, _ = duel(make_user, days_per_move=3)
    deadline = game.deadline
    with time_machine.travel(deadline - timedelta(hours=25), tick=False):
        assert timeouts.due_reminders(timezone.now()) == []
    with time_machine.travel(deadline - timedelta(hours=23), tick=False):
        for _ in range(2):  # a sweep run twice sends one reminder
            for game_id in timeouts.due_reminders(timezone.now()):
                timeouts.reminder_send(game_id=game_id)
    assert kinds(game, NotificationKind.REMINDER) == [f"reminder:{game.pk}:0:0:24h"]
    game.refresh_from_db()
    assert game.reminder_at == deadline - timedelta(hours=2)
    with time_machine.travel(deadline - timedelta(minutes=90), tick=False):
        for game_id in timeouts.due_reminders(timezone.now()):
            timeouts.reminder_send(game_id=game_id)
    assert kinds(game, NotificationKind.REMINDER)[-1] == f"reminder:{game.pk}:0:0:2h"
    game.refresh_from_db()
    assert game.reminder_at is None


def test_one_day_games_skip_the_24h_reminder(make_user: Any) -> None:
    game, _, _ = duel(make_user, days_per_move=1)
    assert game.reminder_at == game.deadline - timedelta(hours=2)


def test_timeout_lets_the_bot_play_the_turn_and_tells_everyone(make_user: Any) -> None:
    game, _, _ = duel(make_user, days_per_move=2)
    with time_machine.travel(game.deadline - timedelta(seconds=1), tick=False):
        assert timeouts.timeout_apply(game_id=game.pk) == "not_due"
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        assert timeouts.due_deadlines(timezone.now()) == [game.pk]
        assert timeouts.timeout_apply(game_id=game.pk) == "played"
        assert timeouts.timeout_apply(game_id=game.pk) == "not_due"  # a second sweep: nothing
    game.refresh_from_db()
    events = list(Event.objects.filter(game=game))
    assert events and all(e.seat == 0 and e.source == EventSource.TIMEOUT for e in events)
    assert game.to_move == 1 and game.status == GameStatus.RUNNING
    assert Seat.objects.get(game=game, index=0).timeouts == 1
    assert len(kinds(game, NotificationKind.TIMEOUT)) == 2  # both players are told


def test_a_move_of_the_player_resets_the_timeouts(make_user: Any) -> None:
    game, anna, bela = duel(make_user, days_per_move=1)
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        timeouts.timeout_apply(game_id=game.pk)
        game.refresh_from_db()
        play_turn(game, bela)
        play_turn(game, anna)
    assert Seat.objects.get(game=game, index=0).timeouts == 0


def test_after_n_timeouts_in_a_row_the_seat_retires_and_ranks_last(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna = make_user()
    with time_machine.travel(START, tick=False):
        game = game_create(
            creator=anna, kind="keltis", player_count=3, bots=["greedy", "random"]
        )
    game.refresh_from_db()
    assert game.max_timeouts == 3
    outcomes = []
    for _ in range(3):
        game.refresh_from_db()
        with (
            time_machine.travel(game.deadline + timedelta(minutes=1), tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            outcomes.append(timeouts.timeout_apply(game_id=game.pk))
    assert outcomes == ["played", "played", "retired"]
    game.refresh_from_db()
    # the retired seat no longer waits for anybody: the game plays on to its end by itself
    assert game.status == GameStatus.FINISHED
    seats = list(game.seats.order_by("index"))
    assert seats[0].retired and seats[0].place == 3
    assert Event.objects.filter(game=game, source=EventSource.RETIRED).exists()


def test_a_game_with_fewer_than_two_active_seats_ends(make_user: Any) -> None:
    game, _, _ = duel(make_user, days_per_move=1)
    Game.objects.filter(pk=game.pk).update(max_timeouts=1)
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        assert timeouts.timeout_apply(game_id=game.pk) == "ended"
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.deadline is None
    seats = list(game.seats.order_by("index"))
    assert seats[0].retired and seats[0].place == 2 and seats[1].place == 1
    assert len(kinds(game, NotificationKind.FINISHED)) == 2


def test_vacation_stops_the_clock(make_user: Any) -> None:
    game, anna, _ = duel(make_user, days_per_move=2)
    Vacation.objects.create(
        user=anna, starts_at=START + timedelta(days=1), ends_at=START + timedelta(days=4)
    )
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        assert timeouts.timeout_apply(game_id=game.pk) == "extended"
    game.refresh_from_db()
    assert game.deadline == START + timedelta(days=2 + 3)
    assert not Event.objects.filter(game=game).exists()
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        assert timeouts.timeout_apply(game_id=game.pk) == "played"


def test_a_vacation_ahead_moves_the_deadline_a_move_sets(make_user: Any) -> None:
    game, anna, bela = duel(make_user, days_per_move=2)
    Vacation.objects.create(  # bela is away for a day, starting the day after anna moves
        user=bela, starts_at=START + timedelta(days=2), ends_at=START + timedelta(days=3)
    )
    Vacation.objects.create(  # anna's vacation ended before her turn: no effect
        user=anna, starts_at=START - timedelta(days=9), ends_at=START - timedelta(days=8)
    )
    with time_machine.travel(START + timedelta(days=1), tick=False):
        play_turn(game, anna)
    game.refresh_from_db()
    assert game.to_move == 1
    assert game.deadline == START + timedelta(days=1 + 2 + 1)


def test_a_vacation_in_the_turn_is_not_taken_from_the_bank(make_user: Any) -> None:
    game, anna, _ = duel(make_user, days_per_move=1, bank_increment_hours=12, bank_cap_hours=48)
    Seat.objects.filter(game=game, index=0).update(bank_seconds=24 * 3600)
    Vacation.objects.create(
        user=anna, starts_at=START + timedelta(hours=1), ends_at=START + timedelta(hours=21)
    )
    with time_machine.travel(START + timedelta(days=1, hours=10), tick=False):
        play_turn(game, anna)  # 34 h, 20 of them away: 14 h used, none over the day
    assert Seat.objects.get(game=game, index=0).bank_seconds == (24 + 12) * 3600


def test_a_players_latest_vacation_end_follows_their_vacations(make_user: Any) -> None:
    import importlib

    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    anna, bela = make_user(), make_user()

    def latest() -> Any:
        anna.refresh_from_db(fields=["vacations_end"])
        return anna.vacations_end

    assert latest() is None
    early = Vacation.objects.create(
        user=anna, starts_at=START, ends_at=START + timedelta(days=2)
    )
    late = Vacation.objects.create(
        user=anna, starts_at=START + timedelta(days=5), ends_at=START + timedelta(days=7)
    )
    Vacation.objects.create(user=bela, starts_at=START, ends_at=START + timedelta(days=30))
    assert latest() == START + timedelta(days=7)
    late.delete()
    assert latest() == START + timedelta(days=2)
    Vacation.objects.filter(pk=early.pk).delete()
    assert latest() is None

    # the migration that added the field fills it from the vacations already declared
    Vacation.objects.create(user=anna, starts_at=START, ends_at=START + timedelta(days=3))
    type(anna).objects.update(vacations_end=None)
    migration = importlib.import_module("accounts.migrations.0004_vacations_end")
    apps = MigrationExecutor(connection).loader.project_state(
        ("accounts", "0004_vacations_end")
    ).apps
    migration.fill(apps, None)
    assert latest() == START + timedelta(days=3)
    bela.refresh_from_db()
    assert bela.vacations_end == START + timedelta(days=30)


def test_a_move_just_before_the_deadline_wins(make_user: Any) -> None:
    game, anna, _ = duel(make_user, days_per_move=1)
    old_deadline = game.deadline
    with time_machine.travel(old_deadline - timedelta(seconds=1), tick=False):
        play_turn(game, anna)
    with time_machine.travel(old_deadline + timedelta(seconds=30), tick=False):
        assert timeouts.due_deadlines(timezone.now()) == []
        assert timeouts.timeout_apply(game_id=game.pk) == "not_due"
    assert not Event.objects.filter(game=game, source=EventSource.TIMEOUT).exists()


def test_the_time_bank_grows_per_move_and_pays_for_slow_moves(make_user: Any) -> None:
    game, anna, bela = duel(make_user, days_per_move=1, bank_increment_hours=12, bank_cap_hours=30)
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        play_turn(game, anna)  # quick: the bank grows by 12 h
    assert Seat.objects.get(game=game, index=0).bank_seconds == 12 * 3600
    with time_machine.travel(START + timedelta(hours=2), tick=False):
        play_turn(game, bela)
    game.refresh_from_db()
    # anna's next deadline: a day plus her 12 h bank
    assert game.deadline == START + timedelta(hours=2, days=1) + timedelta(hours=12)
    with time_machine.travel(START + timedelta(hours=2, days=1, minutes=360), tick=False):
        play_turn(game, anna)  # 6 h over the day: taken from the bank, then +12 h
    assert Seat.objects.get(game=game, index=0).bank_seconds == (12 - 6 + 12) * 3600
    with time_machine.travel(START + timedelta(days=3), tick=False):
        play_turn(game, bela)
        play_turn(game, anna)
    assert Seat.objects.get(game=game, index=0).bank_seconds == 30 * 3600  # the cap


def race_move_and_timeout(make_user: Any) -> tuple[Game, dict[str, str]]:
    """The player's move and the sweep's timeout start at the same instant."""
    game, anna, _ = duel(make_user, days_per_move=1)
    action = engine_state(game).legal()[0]
    barrier = threading.Barrier(2)
    results: dict[str, str] = {}

    def by_player() -> None:
        try:
            barrier.wait()
            action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
            results["player"] = "stored"
        except Exception as exc:  # the timeout won: the page says the game moved on
            results["player"] = type(exc).__name__
        finally:
            connection.close()

    def by_sweep() -> None:
        try:
            barrier.wait()
            results["sweep"] = timeouts.timeout_apply(
                game_id=game.pk, now=game.deadline + timedelta(seconds=1)
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=by_player), threading.Thread(target=by_sweep)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return game, results


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_a_racing_move_and_timeout_apply_exactly_one(make_user: Any) -> None:
    for _round in range(4):
        game, results = race_move_and_timeout(make_user)
        first = Event.objects.filter(game=game, seq=1).get()
        if results["player"] == "stored":
            assert first.source == EventSource.PLAYER
            assert results["sweep"] in ("not_due", "played")
        else:
            assert results["player"] == "GameMovedOn" and results["sweep"] == "played"
            assert first.source == EventSource.TIMEOUT
        assert Event.objects.filter(game=game, seq=1).count() == 1


def test_declaring_a_vacation_moves_the_stored_deadline_at_once(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from accounts import vacations

    game, anna, _ = duel(make_user, days_per_move=2)
    with (
        time_machine.travel(START + timedelta(hours=1), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert timeouts.deadlines_refresh in vacations.CHANGED_HOOKS
        Vacation.objects.create(
            user=anna, starts_at=START + timedelta(days=1), ends_at=START + timedelta(days=2)
        )
        assert timeouts.deadlines_refresh(anna.pk) == 1
    game.refresh_from_db()
    assert game.deadline == START + timedelta(days=3)
