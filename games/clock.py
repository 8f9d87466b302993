"""Correspondence clocks: deadlines, reminders, the Fischer time bank and vacations.

Everything is derived from stored timestamps (when the turn began, the seat's bank, the
player's vacations), so the deadline sweep and a page show the same time, and a clock stops
while its player is on vacation without anything having to run during the vacation.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from accounts.models import Vacation

from .models import Game, Seat

#: reminders before a deadline, the earliest first; one email each
REMINDERS: tuple[tuple[str, timedelta], ...] = (
    ("24h", timedelta(hours=24)),
    ("2h", timedelta(hours=2)),
)
MAX_VACATION_PASSES = 8


#: a player's latest vacation end when the caller has not read it
UNKNOWN: Any = object()


def vacations_end(seat: Seat) -> Any:
    """When the seat's player's latest vacation ends, if the seat was read with its user (None:
    never had one), else UNKNOWN. Read with the seats, it spares the clock a query of its own
    for the players whose vacations are all behind them (most of them, on most turns)."""
    if seat.user_id is None or not Seat.user.is_cached(seat):
        return UNKNOWN
    return seat.user.vacations_end


def vacation_overlap(
    user_id: int | None, start: datetime, end: datetime, latest_end: Any = UNKNOWN
) -> timedelta:
    """How much of [start, end) the player spent on declared vacation (``latest_end``:
    the player's latest vacation end when the caller read it, see ``vacations_end``)."""
    if user_id is None or end <= start:
        return timedelta(0)
    if latest_end is not UNKNOWN and (latest_end is None or latest_end <= start):
        return timedelta(0)
    total = timedelta(0)
    for v_start, v_end in Vacation.objects.filter(
        user_id=user_id, starts_at__lt=end, ends_at__gt=start
    ).values_list("starts_at", "ends_at"):
        total += min(v_end, end) - max(v_start, start)
    return total


def seat_deadline(game: Game, seat: Seat, turn_started: datetime) -> datetime | None:
    """When the seat's turn times out: days per move plus its bank, pushed on by vacations.

    Bots and retired seats act at once and have no deadline.
    """
    if seat.user_id is None or seat.retired:
        return None
    base = turn_started + timedelta(days=game.days_per_move, seconds=seat.bank_seconds)
    deadline = base
    ends = vacations_end(seat)
    for _ in range(MAX_VACATION_PASSES):  # a vacation may start inside the extension itself
        extended = base + vacation_overlap(seat.user_id, turn_started, deadline, ends)
        if extended == deadline:
            break
        deadline = extended
    return deadline


def next_reminder(deadline: datetime | None, after: datetime) -> datetime | None:
    """The first reminder time strictly after ``after`` (None when no reminder is left)."""
    if deadline is None:
        return None
    for _, before in REMINDERS:
        moment = deadline - before
        if moment > after:
            return moment
    return None


def deadline_move(game: Game, deadline: datetime | None, now: datetime) -> list[str]:
    """Move the running turn's deadline (a vacation, an unfreeze) and its reminder, and count
    the move: the calendar feed's SEQUENCE grows with it, so a calendar takes the new time.
    Returns the fields to save."""
    game.deadline = deadline
    game.reminder_at = next_reminder(deadline, now)
    game.deadline_moves += 1
    game.deadline_moved_at = now
    return ["deadline", "reminder_at", "deadline_moves", "deadline_moved_at"]


def reminder_label(deadline: datetime, moment: datetime) -> str:
    """Which reminder is due at ``moment`` ('24h' or '2h'): the latest one not in the future."""
    label = REMINDERS[0][0]
    for name, before in REMINDERS:
        if deadline - before <= moment:
            label = name
    return label


def bank_after_turn(game: Game, seat: Seat, turn_started: datetime, now: datetime) -> int:
    """The seat's bank (seconds) once its turn ends at ``now``: time beyond the days per move
    is taken from the bank, then the bank grows by the increment, up to the cap."""
    if not game.bank_increment_hours:
        return 0
    away = vacation_overlap(seat.user_id, turn_started, now, vacations_end(seat))
    used = now - turn_started - away
    overflow = max(timedelta(0), used - timedelta(days=game.days_per_move))
    bank = max(0, seat.bank_seconds - int(overflow.total_seconds()))
    bank += game.bank_increment_hours * 3600
    return min(bank, game.bank_cap_hours * 3600)


def vacation_days_per_year() -> int:
    return getattr(settings, "VACATION_DAYS_PER_YEAR", 30)
