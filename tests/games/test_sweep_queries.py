"""What a due game costs the deadline sweep: at most six SQL statements per game timed out
(the one read under the lock, the events, the snapshot, the game, the seat, the messages), on
SQLite and PostgreSQL alike, however many games are due, the timeout that ends a game
included (the seats' places are that one write of the seats), and the same outcome as before:
the turn played from the seat's view through ``action_submit``, the chain intact, everyone
told in the same transaction, a second sweep finding nothing to do.

Counted as the sweep runs it: each game in a transaction of its own (``transaction=True``),
the follow-up work after the commit (bots, emails, live pages) left to its own tasks. The
transaction's own BEGIN/COMMIT are not statements of the work, and are left out of the
count; a savepoint would be, and there is none.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services, tasks, timeouts
from games.event_chain import verify_game_chain
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.services import game_create, game_join
from notifications.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db(transaction=True)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PER_GAME = 6
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


@pytest.fixture
def after_commit(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """The work queued after each commit, recorded instead of run (it is other tasks' cost)."""
    queued: list[tuple[int, int]] = []
    monkeypatch.setattr(
        services,
        "AFTER_COMMIT_HOOKS",
        [lambda game_id, seq, automatic: queued.append((game_id, seq))],
    )
    monkeypatch.setattr(services, "CHANGED_HOOKS", [])
    # a game's end queues its ratings and tournament work: a task of its own too
    monkeypatch.setattr(services, "FINISHED_HOOKS", [lambda game_id: queued.append((game_id, -1))])
    yield queued


def statements(context: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"] for q in context.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]


def savepoints(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if "SAVEPOINT" in q["sql"]]


def due_games(make_user: Any, count: int, kind: str, players: int = 2, **create: Any) -> list[int]:
    ids = []
    with time_machine.travel(START, tick=False):
        for _ in range(count):
            people = [make_user() for _ in range(players)]
            game = game_create(creator=people[0], kind=kind, player_count=players, **create)
            for person in people[1:]:
                game_join(game_id=game.pk, user=person)
            ids.append(game.pk)
    return ids


@pytest.mark.parametrize(
    ("kind", "players", "create"),
    [
        ("keltis", 2, {}),
        ("keltis-cards", 2, {}),
        ("keltis", 4, {}),
        ("keltis-cards", 3, {"bank_increment_hours": 12, "bank_cap_hours": 48}),
    ],
)
def test_a_timeout_costs_at_most_six_statements_and_plays_the_whole_turn(
    make_user: Any,
    after_commit: list[tuple[int, int]],
    kind: str,
    players: int,
    create: dict[str, Any],
) -> None:
    (game_id,) = due_games(make_user, 1, kind, players, days_per_move=1, **create)
    after_commit.clear()  # the game's start
    with time_machine.travel(START + timedelta(days=1, minutes=1), tick=False):
        with CaptureQueriesContext(connection) as context:
            outcome = timeouts.timeout_apply(game_id=game_id)
        assert outcome == "played"
        assert len(statements(context)) <= PER_GAME, "\n".join(statements(context))
        assert savepoints(context) == []
        assert timeouts.timeout_apply(game_id=game_id) == "not_due"  # a second sweep: nothing
    game = Game.objects.get(pk=game_id)
    events = list(Event.objects.filter(game=game).order_by("seq"))
    assert len(events) >= 2 and {(e.seat, e.source) for e in events} == {(0, EventSource.TIMEOUT)}
    assert game.seq == len(events) and game.to_move == 1 and game.status == GameStatus.RUNNING
    assert verify_game_chain(game) == []
    assert Seat.objects.get(game=game, index=0).timeouts == 1
    told = Notification.objects.filter(game=game, kind=NotificationKind.TIMEOUT)
    assert sorted(told.values_list("key", flat=True)) == sorted(
        f"timeout:{game_id}:0:0:{index}" for index in range(players)
    )
    assert Notification.objects.filter(
        game=game, kind=NotificationKind.TURN, key=f"turn:{game_id}:1:{game.seq}"
    ).exists()
    assert after_commit == [(game_id, game.seq)]  # the next turn's email and bots: once


def test_the_sweep_costs_six_statements_per_game_due_however_many_are_due(
    make_user: Any, after_commit: list[tuple[int, int]]
) -> None:
    ids = due_games(make_user, 4, "keltis-cards", days_per_move=3)
    ids += due_games(make_user, 4, "keltis", days_per_move=3)
    few, many = ids[:2], ids[2:]
    Game.objects.filter(pk__in=ids).update(reminder_at=None)  # the timeouts alone
    Game.objects.filter(pk__in=many).update(deadline=START + timedelta(days=30))
    counted = {}
    for due, minute in ((few, 1), (many, 2)):
        Game.objects.filter(pk__in=due).update(deadline=START + timedelta(days=3))
        moment = START + timedelta(days=3, minutes=minute)
        with time_machine.travel(moment, tick=False), CaptureQueriesContext(connection) as context:
            counts = tasks.sweep_deadlines()
        assert counts == {"timeout_played": len(due)}
        assert savepoints(context) == []
        counted[len(due)] = len(statements(context))
    # the two reads of what is due (reminders, deadlines), then six statements per game due
    assert counted[2] <= 2 + PER_GAME * 2, counted
    assert counted[6] <= 2 + PER_GAME * 6, counted
    assert counted[6] - counted[2] <= PER_GAME * 4, counted


def test_a_seat_that_retires_ends_a_two_player_game(
    make_user: Any, after_commit: list[tuple[int, int]]
) -> None:
    (game_id,) = due_games(make_user, 1, "keltis", days_per_move=1)
    Seat.objects.filter(game_id=game_id, index=0).update(timeouts=2)
    Seat.objects.filter(game_id=game_id, index=1).update(timeouts=1)
    Game.objects.filter(pk=game_id).update(max_timeouts=3)
    moment = START + timedelta(days=1, minutes=1)
    with time_machine.travel(moment, tick=False), CaptureQueriesContext(connection) as context:
        assert timeouts.timeout_apply(game_id=game_id) == "ended"
    # the end costs no more than a turn: every seat's place and the retired seat's count are
    # one write, the news of the end goes out with the timeout's
    assert len(statements(context)) <= PER_GAME, "\n".join(statements(context))
    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.FINISHED
    seat = Seat.objects.get(game=game, index=0)
    assert seat.retired and seat.timeouts == 3 and seat.place == 2
    other = Seat.objects.get(game=game, index=1)
    assert other.place == 1 and other.timeouts == 1 and not other.retired  # left as it was
    assert Notification.objects.filter(game=game, kind=NotificationKind.TIMEOUT).count() == 2
    assert Notification.objects.filter(game=game, kind=NotificationKind.FINISHED).count() == 2
    assert (game_id, -1) in after_commit  # the ratings and the tournament hear of the end


def test_a_frozen_game_is_passed_by(make_user: Any, after_commit: list[tuple[int, int]]) -> None:
    (game_id,) = due_games(make_user, 1, "keltis", days_per_move=1)
    Game.objects.filter(pk=game_id).update(chain_head="0" * 64)  # the link no longer holds
    with time_machine.travel(START + timedelta(days=1, minutes=1), tick=False):
        assert timeouts.timeout_apply(game_id=game_id) == "frozen"
        assert timeouts.timeout_apply(game_id=game_id) == "frozen"
    assert Game.objects.get(pk=game_id).frozen
    assert not Event.objects.filter(game_id=game_id).exists()
    assert not Notification.objects.filter(game_id=game_id, kind=NotificationKind.TIMEOUT).exists()


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_timeout_that_plays_the_last_turn_costs_no_more_than_another(
    make_user: Any, after_commit: list[tuple[int, int]], kind: str
) -> None:
    """A game played to its end by timeouts alone: the last one, which ends it (scores,
    places, everyone told), costs the six statements of any other."""
    (game_id,) = due_games(make_user, 1, kind, days_per_move=1)
    Game.objects.filter(pk=game_id).update(max_timeouts=1000)  # nobody retires
    costs = []
    game = Game.objects.get(pk=game_id)
    while game.status == GameStatus.RUNNING:
        assert game.deadline is not None and len(costs) < 400
        moment = game.deadline + timedelta(minutes=1)
        with time_machine.travel(moment, tick=False), CaptureQueriesContext(connection) as context:
            assert timeouts.timeout_apply(game_id=game_id) == "played"
        costs.append(len(statements(context)))
        game.refresh_from_db()
    assert max(costs) <= PER_GAME, costs
    assert verify_game_chain(game) == []
    seats = list(Seat.objects.filter(game=game).order_by("index"))
    assert all(s.score is not None and s.place in (1, 2) for s in seats)
    assert sorted(s.place for s in seats) in ([1, 1], [1, 2])
    assert [s.timeouts for s in seats] == [len(costs[::2]), len(costs[1::2])]  # in turn
    finished = Notification.objects.filter(game=game, kind=NotificationKind.FINISHED)
    assert sorted(finished.values_list("user_id", flat=True)) == sorted(s.user_id for s in seats)
    assert after_commit.count((game_id, -1)) == 1
