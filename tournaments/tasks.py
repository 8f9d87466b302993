"""Celery tasks of ratings, leagues and tournaments: thin wrappers around services.

Each is idempotent: rating a game twice rates it once (a unique row per player and game), the
matchmaker and the round advancer re-check under row locks.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone


@shared_task(acks_late=True, ignore_result=True)
def after_game_finished(game_id: int) -> None:
    """A game finished: rate it, and move its tournament round on if that was the last game."""
    from . import ratings, rounds

    ratings.rate_game(game_id=game_id)
    rounds.round_check_for_game(game_id=game_id)


@shared_task(ignore_result=True)
def rate_finished_games() -> int:
    """Periodic catch-up: finished rated games that no task has rated yet."""
    from . import ratings

    return sum(ratings.rate_game(game_id=g) for g in ratings.unrated_finished_games())


@shared_task(ignore_result=True)
def run_matchmaker() -> int:
    """Periodic: seat waiting league members into new games; returns the games started."""
    from . import leagues

    return leagues.matchmaker_pass(now=timezone.now())


@shared_task(ignore_result=True)
def close_seasons() -> int:
    """Periodic: finish league seasons whose end has come (and open the next)."""
    from . import leagues

    return leagues.seasons_close_due(now=timezone.now())


@shared_task(ignore_result=True)
def advance_tournaments() -> int:
    """Periodic: start tournaments whose sign-up closed, pair next rounds, end stuck rounds."""
    from . import rounds

    return rounds.tournaments_advance(now=timezone.now())


def game_finished(game_id: int) -> None:
    """games.services FINISHED_HOOKS entry (after commit)."""
    after_game_finished.delay(game_id)
