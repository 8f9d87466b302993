"""Engine checksum, run by hand before and after a change meant to make the engine faster.

Hashes seeded random games of every game and player count: at every step the legal list, the
views, the snapshot and the action; at some the errors of illegal actions and the greedy bot's
choice; at the end the scores, winners and replay. Equal digests: the same answers.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cli
from games.engine import GAMES, IllegalAction, Record, replay
from games.engine.base import SPECTATOR
from games.engine.bots import GreedyBot, RandomBot


def digest(name: str, players: int, seeds: int) -> str:
    """The hex digest of ``seeds`` random games of one game at one player count."""
    cls = GAMES[name]
    table = sorted(__import__(cls.__module__, fromlist=["ACTIONS"]).ACTIONS)
    h = hashlib.sha256()

    def put(value: object) -> None:
        h.update(json.dumps(value, sort_keys=True).encode())
        h.update(b"\n")

    for seed in range(seeds):
        game = cls.new(players, {"seed": seed}, {next(iter(cls.OPTIONS)): seed % 2 == 1})
        bot, greedy = RandomBot(seed), GreedyBot(seed)
        step = 0
        while not game.finished:
            legal = game.legal()
            put(legal)
            put(game.to_move)
            for viewer in (None, SPECTATOR, *range(players)):
                put(game.view(viewer))
            put(game.snapshot())
            put(game.scores())
            if step % 7 == 0:
                allowed = set(legal)
                for action in table[step % 11 :: 37]:
                    if action in allowed:
                        continue
                    try:
                        game.apply(action)
                    except IllegalAction as exc:
                        put([action, type(exc).__name__, exc.code, exc.params])
                    else:
                        raise AssertionError(f"{action} applied but not legal")
                for action in ("", "play", "play r99", 7):
                    try:
                        game.apply(action)  # type: ignore[arg-type]
                    except IllegalAction as exc:
                        put([type(exc).__name__, exc.code, exc.params])
                put(greedy.choose(game.copy()))
                put(game.copy().legal())
            action = bot.choose(game)
            put(action)
            game.apply(action)
            step += 1
        put([game.scores(), game.winners(), game.view()])
        record = Record(name, [f"p{i}" for i in range(players)], {"seed": seed}, {}, game.actions)
        put(replay(record).snapshot() if seed % 2 == 0 else None)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> None:
    args = cli(__doc__, argv, {"seeds": 1}, ("--seeds", 40, "games per game and player count"))
    total = hashlib.sha256()
    for name in sorted(GAMES):
        for players in (2, 3, 4):
            value = digest(name, players, args.seeds)
            total.update(value.encode())
            print(f"{name} {players} players, {args.seeds} seeds: {value[:16]}")
    print(f"all: {total.hexdigest()}")


if __name__ == "__main__":
    main()
