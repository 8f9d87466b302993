"""The deadline sweep's work: reminders before a deadline, and the timeout policy after it.

A timeout goes down the same path as a move: lock the game row, check again that the deadline
really passed (a move that arrived first has moved it), then let the engine's bot play the
seat's turn through ``action_submit``. Two sweeps at once therefore apply one timeout.
A frozen game (games.integrity) has no deadline that counts: the sweep passes it by.
"""

from __future__ import annotations

import functools
from datetime import datetime

from django.db import transaction
from django.db.models import F, FilteredRelation, Q, QuerySet
from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine.bots import bot_action, make_bot
from games.engine.determinize import player_view

from . import clock, due
from .event_chain import ROW_COLUMNS, ChainRow
from .models import EventSource, Game, GameStatus, Seat
from .services import GameFrozen, Locked, action_submit, frozen_on_bad_log, game_finish_early
from .state import engine_state

#: a timed-out turn is played by the normal bot (the greedy heuristic), whatever the levels of
#: the table's bot seats: sensible, quick, and never the strong bot's search
TIMEOUT_BOT = "normal"
SWEEP_BATCH = 500


def due_deadlines(now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    """Games whose deadline passed: an index range scan, proportional to the games due."""
    return list(
        Game.objects.filter(status=GameStatus.RUNNING, deadline__lte=now, frozen_at__isnull=True)
        .order_by("deadline")
        .values_list("pk", flat=True)[:limit]
    )


def due_reminders(now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    return list(
        Game.objects.filter(status=GameStatus.RUNNING, reminder_at__lte=now, frozen_at__isnull=True)
        .order_by("reminder_at")
        .values_list("pk", flat=True)[:limit]
    )


def reminder_send(*, game_id: int, now: datetime | None = None) -> str:
    """Queue the reminder that is due for the seat to move, and schedule the next one."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != GameStatus.RUNNING or game.reminder_at is None or game.frozen:
            return "none"
        if game.reminder_at > now:
            return "not_due"
        seat = Seat.objects.get(game=game, index=game.to_move)
        deadline = clock.seat_deadline(game, seat, game.turn_started_at or now)
        if deadline != game.deadline:  # a vacation moved the deadline: move the reminder too
            game.save(update_fields=clock.deadline_move(game, deadline, now))
            if game.reminder_at is None or game.reminder_at > now:
                return "moved"
        due.reminder_due(game, seat, clock.reminder_label(game.deadline, now))
        game.reminder_at = clock.next_reminder(game.deadline, now)
        game.save(update_fields=["reminder_at"])
    return "sent"


def timeout_apply(*, game_id: int, now: datetime | None = None) -> str:
    """Apply the timeout policy if the seat to move really ran out of time.

    Returns what happened: 'not_due', 'extended' (a vacation stopped the clock), 'played' (the
    bot played the turn), 'retired' (too many timeouts in a row), 'ended' (fewer than two
    active seats are left, so the game ends) or 'frozen' (the game is frozen, or its log
    turned out not to replay: nothing was applied, and the game is frozen now).

    A timeout played costs six statements (tests/games/test_sweep_queries.py): the one read
    under the lock (``locked_table``), then the action's writes (its events, the snapshot,
    the game, the seat) and one insert of every message it made due (``due.batched``). The
    timeout that ends the game costs the same: every seat's place is that one write of the
    seats (``services._finish``).
    """
    try:
        with frozen_on_bad_log():
            return _timeout_apply(game_id, now or timezone.now())
    except GameFrozen:
        return "frozen"


def _timeout_apply(game_id: int, now: datetime) -> str:
    with transaction.atomic(), due.batched():
        table = locked_table(game_id)
        game = table.game
        if game.frozen:
            return "frozen"
        if game.status != GameStatus.RUNNING or game.deadline is None or game.deadline > now:
            return "not_due"
        seat = next(s for s in table.seats if s.index == game.to_move)
        deadline = clock.seat_deadline(game, seat, game.turn_started_at or now)
        if deadline is not None and deadline > now:
            game.save(update_fields=clock.deadline_move(game, deadline, now))
            return "extended"
        seat.timeouts += 1
        seat.retired = seat.timeouts >= game.max_timeouts
        due.timed_out(game, seat, game.seq, table.seats)
        active = sum(1 for s in table.seats if not s.retired)
        if seat.retired and active < 2:
            game_finish_early(
                game, engine_state(game), now, table.seats, seat, ("timeouts", "retired")
            )
            return "ended"
        # the seat's new count is written with the action's own write of the seat
        table.seat_fields = ("timeouts", "retired")
        _bot_turn(table, seat.index, EventSource.TIMEOUT)
        return "retired" if seat.retired else "played"


@functools.cache
def _table_query() -> QuerySet[Seat]:
    """The sweep's one read of a game, built once (each call only adds the game's id): its
    seats, each with its user (names, vacation ends for the clock) and the game, locked (only
    the game row: a move locks it before it writes a seat, so the two never wait for each
    other), with its snapshot and its last stored event (``integrity.check_head``'s row)."""
    return (
        Seat.objects.select_related("game", "game__snapshot", "user")
        .annotate(
            last_event=FilteredRelation(
                "game__events", condition=Q(game__events__seq=F("game__seq"))
            ),
            **{f"last_{column}": F(f"last_event__{column}") for column in ROW_COLUMNS},
        )
        .select_for_update(of=("game",))
        .order_by("index")
    )


def locked_table(game_id: int) -> Locked:
    """Lock the game and read what playing a turn for one of its seats needs, in one query:
    ``services.Locked``, for ``action_submit`` (which then reads none of it again).

    PostgreSQL returns the game row as it is once the lock is granted, but the rows joined to
    it as they were when the query began: when a move committed while the query waited for
    the lock, its last event (or snapshot) no longer matches the game's count, and the seats
    and the last event are read again (the snapshot is, by ``engine_state``). Seats change
    only with a move (its count) or the game's end (its status), so matching rows are current.
    """
    rows = list(_table_query().filter(game_id=game_id))
    if not rows:  # no seats (or no game: DoesNotExist)
        return Locked(game=Game.objects.select_for_update().get(pk=game_id), seats=[])
    game = rows[0].game
    for row in rows:
        row.game = game  # one game object for the whole table, as the services expect
    first = rows[0]
    last = None
    if first.last_seq is not None:
        last = ChainRow(*(getattr(first, f"last_{column}") for column in ROW_COLUMNS))
    if (last.seq if last is not None else 0) != game.seq:  # moved on while we waited
        return Locked(game=game, seats=list(Seat.objects.filter(game=game).select_related("user")))
    return Locked(game=game, seats=rows, last_event=last)


def _bot_turn(table: Locked, seat: int, source: str) -> None:
    """Let the timeout bot play the seat's whole turn (play, clover, draw) as one submission
    through ``action_submit``, in the caller's transaction, from the seat's view only (as a
    player has it)."""
    game = table.game
    table.engine = table.engine or engine_state(game)

    def choose(engine: EngineGame) -> str:
        seq = len(engine.actions)
        bot = make_bot(TIMEOUT_BOT, seed=game.pk * 1_000_003 + seq)
        return bot_action(bot, player_view(engine, seat), seq)  # may draw from an endless deck

    action_submit(
        game_id=game.pk, seat=seat, action=choose(table.engine), expected_seq=game.seq,
        source=source, locked=table, then=choose,
    )  # fmt: skip


def _play_turn(game: Game, seat: Seat, source: str) -> None:
    """Let the bot finish the seat's whole turn (play, clover, draw) through action_submit
    (a log that does not replay freezes the game once this transaction is rolled back)."""
    with frozen_on_bad_log(), transaction.atomic():
        table = locked_table(game.pk)
        current = table.game
        if current.status != GameStatus.RUNNING or current.to_move != seat.index:
            return
        _bot_turn(table, seat.index, source)


def deadlines_refresh(user_id: int) -> int:
    """A player's vacations changed: recompute the stored deadline of every game waiting for
    them, so pages, emails and the sweep agree at once. Returns the games updated."""
    changed = 0
    waiting = Seat.objects.filter(
        user_id=user_id, game__status=GameStatus.RUNNING, retired=False
    ).values_list("game_id", "index")
    for game_id, index in waiting:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            if game.status != GameStatus.RUNNING or game.to_move != index:
                continue
            seat = Seat.objects.get(game=game, index=index)
            deadline = clock.seat_deadline(game, seat, game.turn_started_at or timezone.now())
            if deadline != game.deadline:
                game.save(update_fields=clock.deadline_move(game, deadline, timezone.now()))
                changed += 1
    return changed


MAX_PLAY_OUT_TURNS = 2_000


def play_out(*, game_id: int) -> int:
    """End a game by the timeout policy: the timeout bot plays every remaining turn of every
    seat (a tournament round's deadline has passed). Returns the turns played; a frozen game
    (or one whose log turns out not to replay, frozen then) is left as it is: 0."""
    try:
        with frozen_on_bad_log():
            return _play_out(game_id)
    except GameFrozen:
        return 0


def _play_out(game_id: int) -> int:
    turns = 0
    with transaction.atomic():
        for _ in range(MAX_PLAY_OUT_TURNS):
            table = locked_table(game_id)
            game = table.game
            if game.status != GameStatus.RUNNING or game.to_move is None or game.frozen:
                return turns
            _bot_turn(table, game.to_move, EventSource.TIMEOUT)
            turns += 1
    raise RuntimeError(f"game {game_id}: playing out did not end the game")
