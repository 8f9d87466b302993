"""Celery tasks of games: thin wrappers that take ids and call services.

Bots act in a task queued after the previous action committed, never inside the request that
made that action; one task plays every consecutive bot action and stops at a person's turn.
"""

from __future__ import annotations

import threading

from celery import shared_task

from . import bot_play

_draining = threading.local()


@shared_task(acks_late=True, ignore_result=True)
def play_bots(game_id: int) -> int:
    """Let the bots of a game act until a person is to move; returns the actions applied."""
    _draining.active = True
    try:
        return bot_play.bots_play(game_id=game_id)
    finally:
        _draining.active = False


def after_action(game_id: int, seq: int) -> None:
    """After-commit hook of every action: wake the bots when a bot seat is to move."""
    if getattr(_draining, "active", False):
        return  # the running play_bots loop takes the next bot action itself
    if bot_play.bot_to_move(game_id):
        play_bots.delay(game_id)
