"""Post-game analysis: what the strong bot would have played at each of a player's moves.

A player of a finished game asks for it (``analysis_request``, a POST from the history page);
a worker computes it once (``analysis_compute``, idempotent) at a reduced, fixed search budget,
so the same game always gets the same analysis; the history page shows it. The bot is given
the player's view before each move, as in play: what the player knew, not the hidden cards.
Nothing is shown while the game runs: the rows are only made for finished games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine.determinize import player_view
from games.engine.search import ANALYSIS_BUDGET, Budget, judge

from .models import Event, EventSource, Game, GameStatus, MoveAnalysis, Seat
from .services import GameServiceError
from .state import apply_stored, engine_start

#: registered by games.tasks: queues the worker's computation of one analysis after commit
_compute_later: Callable[[int], None] | None = None


def register_compute(hook: Callable[[int], None]) -> None:
    global _compute_later
    _compute_later = hook


class AnalysisRefused(GameServiceError):
    """Who asked may not have this analysis (not a player, or the game has not ended)."""


def analysis_request(*, game_id: int, user: Any) -> MoveAnalysis:
    """The analysis of ``user``'s moves in the game, asked for: made (and queued) once; asking
    again returns the same row and queues nothing more."""
    game = Game.objects.get(pk=game_id)
    if game.status != GameStatus.FINISHED:
        raise AnalysisRefused(_("A game can be analysed once it has ended."))
    seat = Seat.objects.filter(game=game, user=user).first()
    if seat is None:
        raise AnalysisRefused(_("Only a player of this game can ask for its analysis."))
    with transaction.atomic():
        analysis, created = MoveAnalysis.objects.get_or_create(
            game=game, seat=seat.index, defaults={"requested_by": user}
        )
        if created and _compute_later is not None:
            hook = _compute_later
            transaction.on_commit(lambda: hook(analysis.pk))
    return analysis


def analysis_compute(*, analysis_id: int) -> bool:
    """Compute and store one analysis unless it is stored already; True when it computed.

    The search runs outside any transaction (it takes seconds); the row is then claimed under
    its lock, so two workers on one analysis store it once.
    """
    analysis = MoveAnalysis.objects.select_related("game").get(pk=analysis_id)
    if analysis.done_at is not None:
        return False
    moves = analyse_moves(analysis.game, analysis.seat)
    with transaction.atomic():
        locked = MoveAnalysis.objects.select_for_update().get(pk=analysis_id)
        if locked.done_at is not None:
            return False
        locked.moves = moves
        locked.done_at = timezone.now()
        locked.save(update_fields=["moves", "done_at"])
    return True


def analyse_moves(game: Game, seat: int, budget: Budget | None = None) -> list[dict[str, Any]]:
    """For each move with a choice that ``seat``'s player made: the move, the bot's choice and
    the cost it saw."""
    budget = budget or ANALYSIS_BUDGET
    engine = engine_start(game)
    moves: list[dict[str, Any]] = []
    events = Event.objects.filter(game=game).order_by("seq")
    for seq, mover, action, source in events.values_list("seq", "seat", "action", "source"):
        # the player's own choices: not a timeout's or a retired seat's bot move
        if mover == seat and source == EventSource.PLAYER and len(engine.legal()) > 1:
            view = player_view(engine, seat)
            verdict = judge(view, seed=game.pk * 1_000_003 + seq, budget=budget, include=action)
            cost = verdict.cost(action) or 0.0
            moves.append(
                {
                    "seq": seq,
                    "played": action,
                    "best": verdict.best,
                    "cost": round(cost, 1),
                }
            )
        apply_stored(engine, game.pk, seq, mover, action)
    return moves


def analysis_for(*, game: Game, user: Any) -> MoveAnalysis | None:
    """The user's analysis of a finished game, if asked for (pending or done)."""
    if game.status != GameStatus.FINISHED or not getattr(user, "is_authenticated", False):
        return None
    seat = Seat.objects.filter(game=game, user=user).values_list("index", flat=True).first()
    if seat is None:
        return None
    return MoveAnalysis.objects.filter(game=game, seat=seat).first()


def can_ask(*, game: Game, user: Any) -> bool:
    """Whether the history page offers ``user`` the analysis button: a player, game over."""
    if game.status != GameStatus.FINISHED or not getattr(user, "is_authenticated", False):
        return False
    return Seat.objects.filter(game=game, user=user).exists()
