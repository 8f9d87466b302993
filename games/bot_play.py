"""Seats that act without a person: bot seats, and seats retired after too many timeouts.

They act through the same ``action_submit`` a person uses, in a task queued after the previous
action committed.
"""

from __future__ import annotations

from django.db.models import F, Q

from games.engine.bots import make_bot

from .models import EventSource, Game, GameStatus, Seat
from .services import GameMovedOn, NotYourTurn, action_submit, engine_state

MAX_BOT_ACTIONS = 10_000  # a bound, never reached in a game that has a person at the table
RETIRED_SEAT_BOT = "greedy"  # a retired seat plays safe, sensible moves


def bot_to_move(game_id: int) -> bool:
    """Whether the seat to move of a running game acts automatically: one query, as it runs
    after every action."""
    return (
        Seat.objects.filter(
            game_id=game_id, game__status=GameStatus.RUNNING, index=F("game__to_move")
        )
        .filter(Q(retired=True) | ~Q(bot=""))
        .exists()
    )


def bots_play(*, game_id: int) -> int:
    """Submit automatic actions while a bot or retired seat is to move. Safe to run twice at
    once: a stale submission is refused by ``expected_seq`` and the loop simply looks again."""
    applied = 0
    for _ in range(MAX_BOT_ACTIONS):
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.RUNNING or game.to_move is None:
            break
        seat = Seat.objects.get(game=game, index=game.to_move)
        if not seat.acts_automatically:
            break
        engine = engine_state(game)
        kind = seat.bot or RETIRED_SEAT_BOT
        # seeded by game and position: the same position always gets the same bot action
        action = make_bot(kind, seed=game.pk * 1_000_003 + game.seq).choose(engine)
        source = EventSource.BOT if seat.bot else EventSource.RETIRED
        try:
            action_submit(
                game_id=game.pk,
                seat=seat.index,
                action=action,
                expected_seq=game.seq,
                source=source,
            )
        except (GameMovedOn, NotYourTurn):
            continue
        applied += 1
    return applied


def games_waiting_for_bots(limit: int = 500) -> list[int]:
    """Running games whose seat to move acts automatically (a missed wake-up, a dead worker).

    Ordered by id, the order of the partial index ``game_waiting_for_bots``: with the model's
    default order (newest first) PostgreSQL walked the created_at index through every game.
    """
    return list(
        Game.objects.filter(status=GameStatus.RUNNING, to_move__isnull=False)
        .filter(deadline__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
