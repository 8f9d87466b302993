"""Celery tasks of games: thin wrappers that take ids and call services (the messages' tasks are
in notifications.tasks).

Every task is idempotent: running one twice applies one action and one timeout, because
the services it calls re-check the state under a row lock or claim rows conditionally.
Periodic ones run from Celery beat (settings.CELERY_BEAT_SCHEDULE).
"""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from django.utils import timezone

from . import bot_play, timeouts

log = logging.getLogger(__name__)

_draining = threading.local()


def log_sweep(name: str, counts: dict[str, int] | int) -> None:
    """One line per sweep run: INFO when it did something, DEBUG when there was nothing to do
    (sweeps run every minute; idle ones would otherwise fill the log)."""
    busy = any(counts.values()) if isinstance(counts, dict) else counts > 0
    log.log(logging.INFO if busy else logging.DEBUG, "%s done", name, extra={"counts": counts})


@shared_task(acks_late=True, ignore_result=True)
def play_bots(game_id: int) -> int:
    """Let the bots of a game act until a person is to move; returns the actions applied."""
    _draining.active = True
    try:
        return bot_play.bots_play(game_id=game_id)
    finally:
        _draining.active = False


@shared_task(ignore_result=True)
def sweep_deadlines() -> dict[str, int]:
    """Periodic (every minute): reminders that are due, then timeouts that are due."""
    now = timezone.now()
    counts: dict[str, int] = {}
    for game_id in timeouts.due_reminders(now):
        outcome = timeouts.reminder_send(game_id=game_id, now=now)
        log.info("reminder %s", outcome, extra={"game_id": game_id, "outcome": outcome})
        counts[f"reminder_{outcome}"] = counts.get(f"reminder_{outcome}", 0) + 1
    for game_id in timeouts.due_deadlines(now):
        # the bot's actions queue their emails and bot wake-ups through action_submit's hooks
        outcome = timeouts.timeout_apply(game_id=game_id, now=now)
        log.info("timeout %s", outcome, extra={"game_id": game_id, "outcome": outcome})
        counts[f"timeout_{outcome}"] = counts.get(f"timeout_{outcome}", 0) + 1
    record_heartbeat("sweep")
    log_sweep("deadline sweep", counts)
    return counts


@shared_task(ignore_result=True)
def sweep_bots() -> int:
    """Periodic: wake the bots of games where an automatic seat waits (a lost wake-up)."""
    woken = 0
    for game_id in bot_play.games_waiting_for_bots():
        if bot_play.bot_to_move(game_id):
            log.info("bots woken", extra={"game_id": game_id})
            play_bots.delay(game_id)
            woken += 1
    log_sweep("bot sweep", woken)
    return woken


@shared_task(ignore_result=True)
def verify_running_chains() -> dict[str, int]:
    """Periodic (hourly): every running game's whole event chain (games.integrity); a broken
    one is frozen and staff are told, as ``manage.py verify_event_chains`` does."""
    from .integrity import check_running_chains

    counts = check_running_chains()
    log_sweep("chain check", counts)
    return counts


@shared_task(ignore_result=True)
def worker_heartbeat() -> None:
    """Periodic (every 30 s): beat queues it and a worker runs it, so a recent heartbeat shows
    that a worker is consuming tasks (GET /healthz checks it)."""
    record_heartbeat("worker")


def record_heartbeat(name: str) -> None:
    """Remember when periodic work last ran (for a health check)."""
    from django.core.cache import cache

    cache.set(f"heartbeat:{name}", timezone.now().isoformat(), timeout=None)


def after_action(game_id: int, seq: int, automatic_next: bool | None = None) -> None:
    """After-commit hook of a game's start and of every action that passed the turn: wake the
    bots when an automatic seat is to move (``automatic_next`` when the caller knew it, else
    looked up). The messages it made due are sent by notifications' own hook."""
    if getattr(_draining, "active", False):
        return  # the running play_bots loop takes the next bot action itself
    if automatic_next is None:
        automatic_next = bot_play.bot_to_move(game_id)
    if automatic_next:
        play_bots.delay(game_id)


@shared_task(acks_late=True, ignore_result=True)
def analyse_game(analysis_id: int) -> bool:
    """Compute one post-game analysis (games.analysis); a second run finds it stored."""
    from . import analysis

    return analysis.analysis_compute(analysis_id=analysis_id)


def queue_analysis(analysis_id: int) -> None:
    """games.analysis's hook: the analysis row committed, the worker computes it."""
    analyse_game.delay(analysis_id)
