"""Bot seats acting through the same ``action_submit`` a person uses."""

from __future__ import annotations

from games.engine.bots import make_bot

from .models import Game, GameStatus, Seat
from .services import GameMovedOn, NotYourTurn, action_submit, engine_state

MAX_BOT_ACTIONS = 10_000  # a bound, never reached in a game that has a person at the table


def bot_to_move(game_id: int) -> bool:
    game = Game.objects.filter(pk=game_id, status=GameStatus.RUNNING).first()
    if game is None or game.to_move is None:
        return False
    return Seat.objects.filter(game=game, index=game.to_move).exclude(bot="").exists()


def bots_play(*, game_id: int) -> int:
    """Submit bot actions while a bot seat is to move. Safe to run twice at once: a stale
    submission is refused by ``expected_seq`` and the loop simply looks again."""
    applied = 0
    for _ in range(MAX_BOT_ACTIONS):
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.RUNNING or game.to_move is None:
            break
        seat = Seat.objects.get(game=game, index=game.to_move)
        if not seat.bot:
            break
        engine = engine_state(game)
        # seeded by game and position: the same position always gets the same bot action
        action = make_bot(seat.bot, seed=game.pk * 1_000_003 + game.seq).choose(engine)
        try:
            action_submit(game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq)
        except (GameMovedOn, NotYourTurn):
            continue
        applied += 1
    return applied
