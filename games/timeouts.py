"""The deadline sweep's work: reminders before a deadline, and the timeout policy after it.

A timeout goes down the same path as a move: lock the game row, check again that the deadline
really passed (a move that arrived first has moved it), then let the engine's bot play the
seat's turn through ``action_submit``. Two sweeps at once therefore apply one timeout.
A frozen game (games.integrity) has no deadline that counts: the sweep passes it by.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games.engine.bots import bot_action, make_bot
from games.engine.determinize import player_view

from . import clock, due
from .models import EventSource, Game, GameStatus, Seat
from .services import TURN_FIELDS, GameFrozen, action_submit, frozen_on_bad_log, game_finish_early
from .state import engine_state

#: a timed-out turn is played by the normal bot (the greedy heuristic), whatever the levels of
#: the table's bot seats: sensible, quick, and never the strong bot's search
TIMEOUT_BOT = "normal"
MAX_TURN_ACTIONS = 50  # a turn is a handful of actions; a bound against any engine surprise
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
    """
    try:
        with frozen_on_bad_log():
            return _timeout_apply(game_id, now or timezone.now())
    except GameFrozen:
        return "frozen"


def _timeout_apply(game_id: int, now: datetime) -> str:
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.frozen:
            return "frozen"
        if game.status != GameStatus.RUNNING or game.deadline is None or game.deadline > now:
            return "not_due"
        seat = Seat.objects.select_for_update().get(game=game, index=game.to_move)
        deadline = clock.seat_deadline(game, seat, game.turn_started_at or now)
        if deadline is not None and deadline > now:
            game.save(update_fields=clock.deadline_move(game, deadline, now))
            return "extended"
        seat.timeouts += 1
        seat.retired = seat.timeouts >= game.max_timeouts
        seat.save(update_fields=["timeouts", "retired"])
        due.timed_out(game, seat, game.seq)
        active = game.seats.filter(retired=False).count()
        if seat.retired and active < 2:
            game_finish_early(game, engine_state(game), now)
            return "ended"
        _play_turn(game, seat, EventSource.TIMEOUT)
        return "retired" if seat.retired else "played"


def _play_turn(game: Game, seat: Seat, source: str) -> None:
    """Let the bot finish the seat's whole turn (play, clover, draw) through action_submit."""
    for _ in range(MAX_TURN_ACTIONS):
        game.refresh_from_db(fields=["status", "to_move", "seq", *TURN_FIELDS])
        if game.status != GameStatus.RUNNING or game.to_move != seat.index:
            return
        engine = engine_state(game)
        view = player_view(engine, seat.index)  # the seat's view only, as a player has
        bot = make_bot(TIMEOUT_BOT, seed=game.pk * 1_000_003 + game.seq)
        action = bot_action(bot, view, game.seq)  # draws from the deck in an endless game
        action_submit(
            game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq, source=source
        )
    raise RuntimeError(f"game {game.pk}: the timeout turn did not end")


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
        game = Game.objects.select_for_update().get(pk=game_id)
        for _ in range(MAX_PLAY_OUT_TURNS):
            if game.status != GameStatus.RUNNING or game.to_move is None or game.frozen:
                return turns
            seat = Seat.objects.get(game=game, index=game.to_move)
            _play_turn(game, seat, EventSource.TIMEOUT)
            turns += 1
            game.refresh_from_db(fields=["status", "to_move"])
    raise RuntimeError(f"game {game_id}: playing out did not end the game")
