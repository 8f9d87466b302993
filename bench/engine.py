"""Engine benchmark, run by hand (docs/benchmarks.md).

For each game and 2-4 players: random games per CPU second and a finished game's replay; then
how often greedy beats random. Targets (issue 17): 1,000 games/s at 4, replay < 0.2 ms, 80%.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cli, dated
from bench.measure import median
from games.engine import GAMES, Record, replay
from games.engine.base import Game
from games.engine.bots import GreedyBot, RandomBot, play_out

TARGET_GAMES_PER_S = 1000
TARGET_REPLAY_MS = 0.2
TARGET_GREEDY_RATE = 0.80
TINY = {"games": 2, "seeds": 2, "repeats": 2}


def random_games_per_second(cls: type[Game], players: int, games: int) -> tuple[float, float]:
    """Complete random games per CPU second (deal included) and the mean actions per game."""
    actions = 0
    start = time.process_time()
    for seed in range(games):
        bots = [RandomBot(seed * 7 + i) for i in range(players)]
        actions += len(play_out(cls.new(players, {"seed": seed}), bots).actions)
    return games / max(time.process_time() - start, 1e-9), actions / games


def replay_ms(cls: type[Game], players: int, repeats: int) -> tuple[float, float, int]:
    """Median and best CPU ms to replay a finished random game from its record."""
    setup = cls.deal(players, 2026)
    game = play_out(cls.new(players, setup), [RandomBot(i) for i in range(players)])
    record = Record(cls.name, [f"p{i}" for i in range(players)], setup, {}, list(game.actions))
    times = []
    for _ in range(repeats):
        start = time.process_time()
        replayed = replay(record)
        times.append((time.process_time() - start) * 1000)
    assert replayed.scores() == game.scores()
    return median(times), min(times), len(game.actions)


def greedy_rate(cls: type[Game], seeds: int) -> tuple[float, float, float]:
    """Share of 2-player games where greedy scores strictly more than random (seats alternate)."""
    wins, greedy_total, random_total = 0, 0, 0
    for seed in range(seeds):
        seat = seed % 2
        bots: list = [None, None]
        bots[seat], bots[1 - seat] = GreedyBot(seed), RandomBot(seed)
        scores = play_out(cls.new(2, {"seed": seed}), bots).scores()
        wins += scores[seat] > scores[1 - seat]
        greedy_total += scores[seat]
        random_total += scores[1 - seat]
    return wins / seeds, greedy_total / seeds, random_total / seeds


def main(argv: list[str] | None = None) -> None:
    args = cli(
        __doc__, argv, TINY,
        ("--games", 500, "random games per player count"),
        ("--seeds", 1000, "seeds for greedy vs random"),
        ("--repeats", 200, "replays to time"),
    )  # fmt: skip
    with dated("engine.py", argv):
        print(
            f"one process, CPU time; targets: {TARGET_GAMES_PER_S:,} random 4-player games/s, "
            f"replay under {TARGET_REPLAY_MS} ms, greedy beats random in {TARGET_GREEDY_RATE:.0%}"
        )
        print(f"{args.games} random games per player count, {args.repeats} replays timed")
        for name, cls in sorted(GAMES.items()):
            print(f"\n== {name}")
            for players in (2, 3, 4):
                rate, mean_actions = random_games_per_second(cls, players, args.games)
                mid, best, n_actions = replay_ms(cls, players, args.repeats)
                mark = "ok" if rate >= TARGET_GAMES_PER_S else f"BELOW {TARGET_GAMES_PER_S:,}"
                replay_mark = "ok" if mid < TARGET_REPLAY_MS else f"ABOVE {TARGET_REPLAY_MS} ms"
                print(
                    f"{players} players: {rate:6.0f} random games/s ({mean_actions:.0f} actions "
                    f"a game) {mark if players == 4 else ''}".rstrip()
                )
                print(
                    f"{players} players: replay of a finished game ({n_actions} actions) median "
                    f"{mid:.3f} ms, best {best:.3f} ms {replay_mark}"
                )
            win, g_mean, r_mean = greedy_rate(cls, args.seeds)
            mark = "ok" if win >= TARGET_GREEDY_RATE else f"BELOW {TARGET_GREEDY_RATE:.0%}"
            print(
                f"greedy beats random in {win:.1%} of {args.seeds} 2-player games "
                f"(mean score greedy {g_mean:.1f}, random {r_mean:.1f}) {mark}"
            )
        print()


if __name__ == "__main__":
    main()
