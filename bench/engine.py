"""Engine benchmark, run by hand: ``python bench/engine.py [--games N] [--seeds N]``.

Prints, for every game of the engine: complete random games per second on one core for 2, 3
and 4 players; the time to replay a finished 4-player game from its record; and how often the
greedy bot beats the random bot in 2-player games. Targets (README): at least 300 random
4-player games per second, a replay under 3 ms, greedy winning at least 80% of games.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import GAMES, Record, replay
from games.engine.base import Game
from games.engine.bots import GreedyBot, RandomBot, play_out

TARGET_GAMES_PER_S = 300
TARGET_REPLAY_MS = 3.0
TARGET_GREEDY_RATE = 0.80


def random_games_per_second(cls: type[Game], players: int, games: int) -> tuple[float, float]:
    """Complete random games per second (deal included) and the mean actions per game."""
    actions = 0
    start = time.perf_counter()
    for seed in range(games):
        game = play_out(
            cls.new(players, {"seed": seed}), [RandomBot(seed * 7 + i) for i in range(players)]
        )
        actions += len(game.actions)
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / games


def replay_ms(cls: type[Game], repeats: int) -> tuple[float, float, int]:
    """Median and best time (ms) to replay a finished 4-player random game from its record."""
    setup = cls.deal(4, 2026)
    game = play_out(cls.new(4, setup), [RandomBot(i) for i in range(4)])
    record = Record(cls.name, ["a", "b", "c", "d"], setup, {}, list(game.actions))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        replayed = replay(record)
        times.append((time.perf_counter() - start) * 1000)
    assert replayed.scores() == game.scores()
    return statistics.median(times), min(times), len(game.actions)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500, help="random games per player count")
    parser.add_argument("--seeds", type=int, default=1000, help="seeds for greedy vs random")
    parser.add_argument("--repeats", type=int, default=200, help="replays to time")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, one process (one core)")
    for name, cls in sorted(GAMES.items()):
        print(f"\n== {name}")
        for players in (2, 3, 4):
            rate, mean_actions = random_games_per_second(cls, players, args.games)
            mark = (
                ""
                if players != 4
                else ("  ok" if rate >= TARGET_GAMES_PER_S else f"  BELOW {TARGET_GAMES_PER_S}")
            )
            print(
                f"random {players}-player games/s: {rate:8.0f}  "
                f"({mean_actions:.0f} actions a game){mark}"
            )
        median, best, n_actions = replay_ms(cls, args.repeats)
        mark = "ok" if median < TARGET_REPLAY_MS else f"ABOVE {TARGET_REPLAY_MS} ms"
        print(
            f"replay of a finished 4-player game ({n_actions} actions): "
            f"median {median:.2f} ms, best {best:.2f} ms  {mark}"
        )
        win, g_mean, r_mean = greedy_rate(cls, args.seeds)
        mark = "ok" if win >= TARGET_GREEDY_RATE else f"BELOW {TARGET_GREEDY_RATE:.0%}"
        print(
            f"greedy beats random in {win:.1%} of {args.seeds} 2-player games "
            f"(mean score greedy {g_mean:.1f}, random {r_mean:.1f})  {mark}"
        )


if __name__ == "__main__":
    main()
