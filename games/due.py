"""What became due in play, told to whoever listens: play knows nothing of the channels.

``services`` and ``timeouts`` call these inside the transaction of the move (or the timeout, or
the reminder's turn on the clock) that made them due, so whatever a listener writes (the outbox's
rows of ``notifications``) commits or rolls back with the move. The apps that listen register in
their ``AppConfig.ready()``; games itself never imports them (tests/games/test_layering.py).

A listener must be quick and must not fail for reasons of its own: it runs under the game's row
lock, and what it raises rolls the move back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, ParamSpec

from .models import Game, Seat

P = ParamSpec("P")


class Due(Generic[P]):
    """One kind of news: called like a function, it calls each registered listener in turn."""

    def __init__(self) -> None:
        self.listeners: list[Callable[P, None]] = []

    def connect(self, listener: Callable[P, None]) -> None:
        """Register ``listener`` once (``ready()`` may run more than once in tests)."""
        if listener not in self.listeners:
            self.listeners.append(listener)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for listener in list(self.listeners):
            listener(*args, **kwargs)


#: (game, seat): the seat's turn began at ``game.turn_seq``
turn_began: Due[[Game, Seat]] = Due()
#: (game, seat, label): the seat to move is reminded of its deadline; ``label`` names which
#: reminder of that turn it is (``clock.reminder_label``), so each is due once
reminder_due: Due[[Game, Seat, str]] = Due()
#: (game, seat, seq, seats): ``seat`` ran out of time at ``seq`` (the timeout policy plays for
#: it); ``seats`` are the table's seats with their users, as the sweep read them under the lock
timed_out: Due[[Game, Seat, int, Sequence[Seat]]] = Due()
#: (game, seats): the game is over, its scores and places written; ``seats`` are the table's
#: seats with their users, in order, as the game's last move read them under the lock
game_finished: Due[[Game, Sequence[Seat]]] = Due()


# -- rows written at the end of a batch of news ----------------------------------------------------
_batch = threading.local()


@contextmanager
def batched() -> Iterator[None]:
    """Around several pieces of news told in one transaction (the sweep's timeout: everyone
    hears of it, and the next seat of its turn): what listeners hand to ``write`` is held and
    written at the end, each writer's rows in one call, still inside the caller's transaction
    (a batch inside a batch is the outer one's). On an exception nothing is written: the
    transaction rolls back anyway."""
    if getattr(_batch, "pending", None) is not None:
        yield
        return
    pending: dict[Callable[[list[Any]], None], list[Any]] = {}
    _batch.pending = pending
    try:
        yield
    finally:
        _batch.pending = None
    for write_rows, rows in pending.items():
        write_rows(rows)


def write(write_rows: Callable[[list[Any]], None], rows: list[Any]) -> None:
    """A listener's rows: written by ``write_rows(rows)`` now, or with the other rows handed to
    the same ``write_rows`` at the end of the open ``batched()`` block (one statement instead
    of one per piece of news)."""
    pending = getattr(_batch, "pending", None)
    if pending is None:
        write_rows(rows)
    else:
        pending.setdefault(write_rows, []).extend(rows)
