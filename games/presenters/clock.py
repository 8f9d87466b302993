"""The game's clock: whose turn it is until when, each seat's time bank and timeouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import ngettext

from ..listings import bank_text, days_per_move_text, duration_text, time_left_text
from ..models import GameStatus
from ..selectors import GamePage, SeatInfo
from .board import Figure, make_figure


def retired_note(timeouts: int) -> str:
    return ngettext(
        "retired after %(n)s timeout: plays automatically, ranks last",
        "retired after %(n)s timeouts: plays automatically, ranks last",
        timeouts,
    ) % {"n": timeouts}


@dataclass(frozen=True)
class SeatClock:
    seat: SeatInfo
    icon: Figure
    #: the seat's unused time bank in words ("" in a game without a bank, or for a bot)
    bank: str
    #: timeouts in a row (None for a bot: it never times out)
    timeouts: int | None
    #: why the seat is retired ("" unless it is)
    retired_note: str
    to_move: bool
    #: the player is on vacation (their clock stops) until then; None when they are not
    away_until: datetime | None = None


@dataclass(frozen=True)
class ClockInfo:
    """Whose turn it is until when, and the game's time control, for the game page."""

    days_per_move: str
    bank_setting: str
    has_bank: bool
    max_timeouts: int
    seats: list[SeatClock]
    running: bool
    #: the seat to move (None unless the game runs)
    to_move: SeatInfo | None = None
    #: when the seat to move times out (None: a bot or retired seat, which plays at once)
    deadline: datetime | None = None
    #: "2 days, 23 hours left", or that the time is up
    time_left: str = ""
    overdue: bool = False
    #: how much of the deadline is the seat's time bank ("" when nothing)
    bank_in_deadline: str = ""
    #: the seat to move is on vacation until then (why its deadline moved); None when not
    to_move_away_until: datetime | None = None


def clock_info(page: GamePage, now: datetime | None = None) -> ClockInfo:
    game = page.game
    now = now or timezone.now()
    has_bank = bool(game.bank_increment_hours)
    running = game.status == GameStatus.RUNNING and not page.finished and not page.frozen
    to_move = None
    if running and page.to_move is not None:
        to_move = next((s for s in page.seats if s.index == page.to_move), None)
    seats = [
        SeatClock(
            seat=s,
            icon=make_figure(s.index, s.name, None, 0, False, 0, 0),
            bank=duration_text(s.bank_seconds) if has_bank and not s.is_bot else "",
            timeouts=None if s.is_bot else s.timeouts,
            retired_note=retired_note(s.timeouts) if s.retired else "",
            to_move=to_move is not None and s.index == to_move.index,
            away_until=page.away_until.get(s.index) if running else None,
        )
        for s in page.seats
    ]
    deadline = game.deadline if to_move is not None else None
    bank_part = ""
    if deadline is not None and has_bank and to_move is not None and to_move.bank_seconds:
        bank_part = duration_text(to_move.bank_seconds)
    return ClockInfo(
        days_per_move=days_per_move_text(game.days_per_move),
        bank_setting=bank_text(game.bank_increment_hours, game.bank_cap_hours),
        has_bank=has_bank,
        max_timeouts=game.max_timeouts,
        seats=seats,
        running=running,
        to_move=to_move,
        deadline=deadline,
        time_left=time_left_text(deadline, now),
        overdue=deadline is not None and deadline <= now,
        bank_in_deadline=bank_part,
        to_move_away_until=page.away_until.get(to_move.index) if to_move is not None else None,
    )
