"""The write path of games: create, join, submit, finish; snapshots; the append-only log."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.test.utils import CaptureQueriesContext

from games import bot_play, services, tasks
from games.engine import game_class
from games.engine.bots import RandomBot
from games.models import AppendOnlyError, Event, Game, GameStatus, Seat, Snapshot
from games.services import (
    ActionRejected,
    GameMovedOn,
    GameNotRunning,
    NotYourSeat,
    NotYourTurn,
    action_submit,
    game_create,
    game_join,
)
from games.state import engine_replay, engine_state, snapshot_rebuild
from notifications import relay
from notifications import tasks as notification_tasks

pytestmark = pytest.mark.django_db


def two_player_game(
    make_user: Any, kind: str = "keltis", names: tuple[Any, Any] = ("anna", "bela")
) -> tuple[Game, Any, Any]:
    anna, bela = make_user(names[0]), make_user(names[1])
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def first_legal(game: Game) -> str:
    return engine_state(game).legal()[0]


def test_game_starts_when_the_table_is_full(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    assert game.status == GameStatus.RUNNING
    assert game.to_move == 0 and game.seq == 0
    assert [s.user for s in game.seats.order_by("index")] == [anna, bela]
    # the setup is stored explicitly and is a valid deal for the engine
    assert len(game.setup["hands"]) == 2 and len(game.setup["removed"]) == 30
    game_class("keltis").new(2, game.setup)


def test_submit_appends_an_event_and_moves_the_snapshot(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    action = first_legal(game)
    result = action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
    assert result.event.seq == 1 and result.event.action == action and result.event.seat == 0
    game.refresh_from_db()
    assert game.seq == 1
    assert Snapshot.objects.get(game=game).seq == 1
    assert engine_state(game).view() == engine_replay(game).view()


def test_snapshot_equals_replay_through_a_whole_game(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    users = [anna, bela]
    bot = RandomBot(7)
    while True:
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        action = bot.choose(engine_state(game))
        action_submit(
            game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq,
            user=users[game.to_move],
        )
        if game.seq % 50 == 0:
            assert engine_state(game).view() == engine_replay(game).view()
    replayed = engine_replay(game)
    assert replayed.finished
    assert engine_state(game).view() == replayed.view()
    seats = list(game.seats.order_by("index"))
    assert [s.score for s in seats] == replayed.scores()
    winners = replayed.winners()
    assert [s.place == 1 for s in seats] == [i in winners for i in range(2)]
    assert game.finished_at is not None and game.to_move is None


def test_rebuilt_snapshot_equals_the_cached_one(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    cached = Snapshot.objects.get(game=game).data
    Snapshot.objects.filter(game=game).delete()
    assert snapshot_rebuild(game).data == cached


def test_stale_snapshot_is_not_trusted(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    Snapshot.objects.filter(game=game).update(seq=0)  # as if a write had been lost
    game.refresh_from_db()
    assert engine_state(game).view() == engine_replay(game).view()


def test_a_snapshot_read_with_the_game_is_used_only_while_current(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    loaded = Game.objects.select_related("snapshot").get(pk=game.pk)
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    loaded.refresh_from_db(fields=["seq"])  # the loaded snapshot (seq 0) is now stale
    assert loaded.seq == 1
    assert engine_state(loaded).view() == engine_replay(loaded).view()


def test_an_action_reads_the_game_its_snapshot_and_seats_once(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    engine = engine_state(game)
    engine.apply(first_legal(game))
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    game.refresh_from_db()
    draw = engine.legal()[0]  # the draw that ends anna's turn: bela's turn begins
    with CaptureQueriesContext(connection) as queries:
        action_submit(game_id=game.pk, seat=0, action=draw, expected_seq=1, user=anna)
    game.refresh_from_db()
    assert game.to_move == 1 and game.turn_seq == 2
    sql = [q["sql"] for q in queries.captured_queries]
    reads = [q for q in sql if q.startswith("SELECT")]
    assert sum('FROM "games_game"' in q for q in reads) == 1
    assert sum('FROM "games_seat"' in q for q in reads) == 1
    # nor the vacations of players who have none ahead (read with the seats); the third read
    # is the link check's: the last event, which must still hash to the chain head (issue 33)
    assert len(reads) == 3
    assert not any('FROM "games_snapshot"' in q for q in reads)
    # the event links to the chain head the game row holds, reading only the event it extends
    assert sum('FROM "games_event"' in q for q in reads) == 1
    assert game.chain_head == Event.objects.get(game=game, seq=2).hash
    # no write of an unchanged time bank or timeout counter
    assert not any(q.startswith('UPDATE "games_seat"') for q in sql)


@pytest.mark.parametrize(
    ("action", "error"),
    [("play r11 big", ActionRejected), ("draw deck", ActionRejected), ("", ActionRejected)],
)
def test_illegal_actions_store_nothing(make_user: Any, action: str, error: type) -> None:
    game, anna, _ = two_player_game(make_user)
    with pytest.raises(error):
        action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
    game.refresh_from_db()
    assert game.seq == 0 and not Event.objects.filter(game=game).exists()
    assert Snapshot.objects.get(game=game).seq == 0


def test_engine_error_keeps_its_message_id(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    with pytest.raises(ActionRejected) as info:
        action_submit(game_id=game.pk, seat=0, action="draw deck", user=anna)
    assert info.value.engine_code == "must_play"


def test_stale_and_foreign_submissions_are_refused(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    stranger = make_user("csaba")
    action = first_legal(game)
    with pytest.raises(NotYourSeat):
        action_submit(game_id=game.pk, seat=0, action=action, user=bela)
    with pytest.raises(NotYourSeat):
        action_submit(game_id=game.pk, seat=0, action=action, user=stranger)
    with pytest.raises(NotYourTurn):
        action_submit(game_id=game.pk, seat=1, action=action, user=bela)
    action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
    with pytest.raises(GameMovedOn):
        action_submit(game_id=game.pk, seat=0, action="draw deck", expected_seq=0, user=anna)
    assert Event.objects.filter(game=game).count() == 1


def test_without_a_seat_the_action_is_for_the_seat_the_user_holds(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    action = first_legal(game)
    with pytest.raises(NotYourSeat):
        action_submit(game_id=game.pk, seat=None, action=action, user=make_user("csaba"))
    with pytest.raises(NotYourSeat):  # no user, no seat: nobody to act for
        action_submit(game_id=game.pk, seat=None, action=action)
    with pytest.raises(NotYourTurn):
        action_submit(game_id=game.pk, seat=None, action=action, user=bela)
    with pytest.raises(Game.DoesNotExist):
        action_submit(game_id=game.pk + 1000, seat=None, action=action, user=anna)

    result = action_submit(game_id=game.pk, seat=None, action=action, user=anna)

    assert result.event.seat == 0 and [s.user for s in result.seats] == [anna, bela]


def test_no_action_in_an_open_game(make_user: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=3)
    with pytest.raises(GameNotRunning):
        action_submit(game_id=game.pk, seat=0, action="draw deck", user=anna)


def test_events_are_append_only(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    event = action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna).event
    event.action = "discard r1"
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(game=game).update(action="x")
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(game=game).delete()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's")
def test_database_refuses_raw_updates_of_events(make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    for sql in ("UPDATE games_event SET action = 'x'", "DELETE FROM games_event"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert Event.objects.get(game=game).action != "x"


def test_bots_fill_seats_and_act_after_the_person(
    make_user: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["random", "greedy"])
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert [s.bot for s in game.seats.order_by("index")] == ["", "random", "greedy"]
    # anna plays and draws; after the commit both bots take their whole turns
    action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    with django_capture_on_commit_callbacks(execute=True):
        while game.to_move == 0 and engine_state(game).phase_name != "play":
            action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
            game.refresh_from_db()
    game.refresh_from_db()
    assert game.to_move == 0 or game.status == GameStatus.FINISHED
    seats_that_acted = set(Event.objects.filter(game=game).values_list("seat", flat=True))
    assert seats_that_acted == {0, 1, 2}


def test_follow_up_work_is_queued_only_when_the_turn_passes(
    make_user: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """A mid-turn action makes no email due and leaves the same person to move: it queues no
    task. The action that passes the turn does, and says whether a bot is to move next."""
    calls: list[tuple[int, int, bool | None]] = []
    monkeypatch.setattr(services, "AFTER_COMMIT_HOOKS", [lambda *args: calls.append(args)])
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    assert calls == []  # anna played a card; her draw is still to come
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=False) as pending:
        action_submit(game_id=game.pk, seat=0, action=first_legal(game), user=anna)
    assert calls == []  # nothing runs before the commit
    for callback in pending:
        callback()
    assert calls == [(game.pk, 2, True)]  # the bot is to move


def test_the_hook_looks_up_the_seat_to_move_when_not_told(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[str] = []

    def mail(shard: int) -> None:  # queued, and begun before the next action
        queued.append("mail")
        relay.taken(shard)

    monkeypatch.setattr(notification_tasks.deliver_shard, "delay", mail)
    monkeypatch.setattr(tasks.play_bots, "delay", lambda _: queued.append("bots"))

    def after_action(*args: Any, **kwargs: Any) -> None:  # the emails' hook, then the bots'
        notification_tasks.after_action(*args, **kwargs)
        tasks.after_action(*args, **kwargs)

    game, _, _ = two_player_game(make_user)
    after_action(game.pk, 0)
    assert queued == ["mail"]
    Seat.objects.filter(game=game, index=0).update(retired=True)
    after_action(game.pk, 0)
    after_action(game.pk, 0, automatic_next=False)
    assert queued == ["mail", "mail", "bots", "mail"]


def test_the_bot_sweep_finds_the_games_waiting_for_an_automatic_seat(make_user: Any) -> None:
    anna = make_user("anna")
    with_bot = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    people, _, _ = two_player_game(make_user, names=("csaba", "dora"))
    assert bot_play.games_waiting_for_bots() == []
    Game.objects.filter(pk=with_bot.pk).update(to_move=1, deadline=None)  # a lost wake-up
    assert bot_play.games_waiting_for_bots() == [with_bot.pk]
    assert bot_play.bot_to_move(with_bot.pk) and not bot_play.bot_to_move(people.pk)
    # a retired person plays automatically too; a finished game waits for nobody
    Seat.objects.filter(game=people, index=0).update(retired=True)
    Game.objects.filter(pk=people.pk).update(deadline=None)
    assert bot_play.bot_to_move(people.pk)
    assert bot_play.games_waiting_for_bots() == sorted([with_bot.pk, people.pk])
    Game.objects.filter(pk=with_bot.pk).update(status=GameStatus.FINISHED)
    assert not bot_play.bot_to_move(with_bot.pk)
    assert bot_play.games_waiting_for_bots() == [people.pk]


def race_for_one_turn(make_user: Any) -> Game:
    """Two threads, each with its own connection, submit for the same turn at once."""
    game, anna, _ = two_player_game(make_user, names=(None, None))
    legal = engine_state(game).legal()
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def submit(action: str) -> None:
        try:
            barrier.wait()
            action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
            outcomes.append("stored")
        except GameMovedOn:
            outcomes.append("moved on")
        finally:
            connection.close()

    # two discards: each leaves a choice of draw (a lay would be followed by the only draw)
    discards = [a for a in legal if a.startswith("discard")]
    threads = [threading.Thread(target=submit, args=(a,)) for a in (discards[0], discards[-1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["moved on", "stored"]
    return game


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (CI runs it)"
)
def test_two_racing_submissions_store_exactly_one(make_user: Any) -> None:
    for _round in range(5):
        game = race_for_one_turn(make_user)
        assert Event.objects.filter(game=game).count() == 1
        game.refresh_from_db()
        assert game.seq == 1 and Snapshot.objects.get(game=game).seq == 1


def test_seat_must_be_a_person_or_a_bot(make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    with pytest.raises(DatabaseError), transaction.atomic():
        Seat.objects.create(game=game, index=5, user=None, bot="")
