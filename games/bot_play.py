"""Seats that act without a person: bot seats, and seats retired after too many timeouts.

They act through the same ``action_submit`` a person uses, in a task queued after the previous
action committed.
"""

from __future__ import annotations

from django.db.models import F, Q

from games.engine.bots import bot_action, make_bot
from games.engine.determinize import player_view

from .models import EventSource, Game, GameStatus, Seat
from .services import GameFrozen, GameMovedOn, NotYourTurn, action_submit, frozen_on_bad_log
from .state import engine_state

#: a bound per run, never reached: a game gone round in circles makes bots draw from the deck
MAX_BOT_ACTIONS = 10_000
RETIRED_SEAT_BOT = "normal"  # a retired seat plays safe, sensible moves (the greedy bot)


def bot_to_move(game_id: int) -> bool:
    """Whether the seat to move of a running game acts automatically: one query, as it runs
    after every action."""
    return (
        Seat.objects.filter(
            game_id=game_id,
            game__status=GameStatus.RUNNING,
            game__frozen_at__isnull=True,
            index=F("game__to_move"),
        )
        .filter(Q(retired=True) | ~Q(bot=""))
        .exists()
    )


def bots_play(*, game_id: int) -> int:
    """Submit automatic actions while a bot or retired seat is to move. Safe to run twice at
    once: a stale submission is refused by ``expected_seq`` and the loop simply looks again.
    A frozen game stops them, and so does a log that turns out not to replay (which freezes
    the game)."""
    applied = 0
    try:
        with frozen_on_bad_log():
            for _ in range(MAX_BOT_ACTIONS):
                outcome = _bot_action(game_id)
                if outcome is None:
                    break
                applied += outcome
    except GameFrozen:
        pass
    return applied


def _bot_action(game_id: int) -> int | None:
    """One automatic action, if one is due: 1 when applied, 0 when a racing submission came
    first (look again), None when no automatic seat is to move (stop)."""
    game = Game.objects.get(pk=game_id)
    if game.status != GameStatus.RUNNING or game.to_move is None or game.frozen:
        return None
    seat = Seat.objects.get(game=game, index=game.to_move)
    if not seat.acts_automatically:
        return None
    engine = engine_state(game)
    kind = seat.bot or RETIRED_SEAT_BOT
    # the bot is given only what its seat may see (never the other hands or the deck), and is
    # seeded by game and position: the same position gets the same action (the strong bot's
    # time budget aside, which may stop it earlier on a busy worker); a game gone round in
    # circles for PROGRESS_AFTER events makes it draw from the deck, so bots alone end a game
    view = player_view(engine, seat.index)
    bot = make_bot(kind, seed=game.pk * 1_000_003 + game.seq)
    action = bot_action(bot, view, game.seq)
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
        return 0
    return 1


def games_waiting_for_bots(limit: int = 500) -> list[int]:
    """Running games whose seat to move acts automatically (a missed wake-up, a dead worker).

    Ordered by id, the order of the partial index ``game_waiting_for_bots``: with the model's
    default order (newest first) PostgreSQL walked the created_at index through every game.
    """
    return list(
        Game.objects.filter(status=GameStatus.RUNNING, to_move__isnull=False)
        .filter(deadline__isnull=True, frozen_at__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
