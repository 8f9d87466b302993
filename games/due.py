"""What became due in play, told to whoever listens: play knows nothing of the channels.

``services`` and ``timeouts`` call these inside the transaction of the move (or the timeout, or
the reminder's turn on the clock) that made them due, so whatever a listener writes (the outbox's
rows of ``notifications``) commits or rolls back with the move. The apps that listen register in
their ``AppConfig.ready()``; games itself never imports them (tests/games/test_layering.py).

A listener must be quick and must not fail for reasons of its own: it runs under the game's row
lock, and what it raises rolls the move back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec

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
#: (game, seat, seq): ``seat`` ran out of time at ``seq`` (the timeout policy plays for it)
timed_out: Due[[Game, Seat, int]] = Due()
#: (game,): the game is over, its scores and places written
game_finished: Due[[Game]] = Due()
