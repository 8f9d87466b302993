"""Bot strength benchmark, run by hand (docs/benchmarks.md).

For each game: the strong bot's share of 2-player games against the greedy bot (ties count
half) and at 4-player tables against three, and its move time (thread CPU p50 and p95, wall
p95), handed only its player's view. Targets (issue 17): 65%, 40%, p95 under 1 s.
"""

from __future__ import annotations

import datetime
import itertools
import math
import multiprocessing
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cli, dated, markdown_table
from bench.measure import median
from bench.measure import p95 as p95_of
from games.engine import GAMES
from games.engine.bots import GreedyBot
from games.engine.determinize import player_view
from games.engine.search import DEFAULT_BUDGET, Budget, StrongBot

TARGET_2P, TARGET_4P, TARGET_P95_S = 0.65, 0.40, 1.0
TINY = {"games": 2, "tables": 1}
TINY_BUDGET = Budget(playouts=1, seconds=None, candidates=2, horizon=1, min_worlds=1)
#: a table still running after this many actions is stopped and scored as it stands (listed)
MAX_GAME_ACTIONS = 3000
STUCK: list[str] = []


Part = tuple[float, list[float], list[float], list[str]]


def strong_wins(name: str, players: int, first: int, indices: range, budget: Budget) -> Part:
    """The strong bot's wins over the tables of ``indices`` (table ``i`` dealt from seed
    ``first + i``, the bot in seat ``i % players``); its moves' CPU and wall times, and the
    tables stopped unfinished."""
    times: list[float] = []
    walls: list[float] = []
    stuck: list[str] = []
    won = 0.0
    for i in indices:
        seed, seat = first + i, i % players
        game = GAMES[name].new(players, {"seed": seed})
        greedy = [GreedyBot(seed * 10 + p) for p in range(players)]
        strong = StrongBot(seed, budget)
        for _ in range(MAX_GAME_ACTIONS):
            if (to_move := game.to_move) is None:
                break
            if to_move == seat:
                view = player_view(game)
                start, wall = time.thread_time(), time.perf_counter()
                action = strong.choose_view(view)
                if len(view["legal"]) > 1:
                    times.append(time.thread_time() - start)
                    walls.append(time.perf_counter() - wall)
            else:
                action = greedy[to_move].choose(game)
            game.apply(action)
        if not game.finished:  # bots that keep drawing back their discards: scores as they stand
            stuck.append(f"{name} {players}p seed {seed}")
        scores = game.scores()
        winners = [p for p, score in enumerate(scores) if score == max(scores)]
        if seat in winners:
            won += 1 / len(winners)
        done = i - indices.start + 1
        print(
            f"  {name} {players}p table {i + 1}/{indices.stop}: strong seat {seat}, scores "
            f"{scores}, {len(game.actions)} actions, strong's share so far {won / done:.2f} "
            f"(of {done} here)", file=sys.stderr, flush=True,
        )  # fmt: skip
    return won, times, walls, stuck


def _wins_part(job: tuple[str, int, int, int, int, Budget]) -> Part:
    name, players, first, start, stop, budget = job
    return strong_wins(name, players, first, range(start, stop), budget)


def strong_share(
    name: str, players: int, games: int, budget: Budget, times: list[float], first: int,
    walls: list[float], jobs: int = 1,
) -> float:  # fmt: skip
    """The strong bot's share of wins over ``games`` tables, in ``jobs`` processes."""
    bounds = [games * k // max(1, jobs) for k in range(max(1, jobs) + 1)]
    parts = [(name, players, first, a, b, budget) for a, b in itertools.pairwise(bounds) if b > a]
    if len(parts) == 1:
        results = [_wins_part(parts[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(len(parts)) as pool:
            results = pool.map(_wins_part, parts)
    for _, part_times, part_walls, stuck in results:
        times += part_times
        walls += part_walls
        STUCK.extend(stuck)
    return sum(won for won, *_ in results) / games


def run(
    games: int, tables: int, budget: Budget, names: list[str], seed_offset: int = 0, jobs: int = 1
) -> list[str]:
    """The table's lines (also printed as they come)."""
    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    processes = "one process" if jobs <= 1 else f"{jobs} processes"
    say(
        f"bench/bots.py {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, python "
        f"{sys.version.split()[0]}, {processes}; budget: {budget}; seed offset {seed_offset}"
    )
    head = ("game", "strong vs greedy, 2p", "strong at 4p tables (1 vs 3 greedy)")
    head += ("move p50 (CPU)", "p95 (CPU)", "p95 (wall)")
    for line in markdown_table(head, []):
        say(line)
    for name in names:
        times: list[float] = []
        walls: list[float] = []
        first2, first4 = 10_000 + seed_offset, 20_000 + seed_offset
        two = strong_share(name, 2, games, budget, times, first2, walls, jobs) if games else 0.0
        four = strong_share(name, 4, tables, budget, times, first4, walls, jobs) if tables else 0.0
        p50, p95 = (median(times), p95_of(times)) if times else (0.0, 0.0)
        mark = "ok" if p95 < TARGET_P95_S else "ABOVE 1 s"
        row = (name, _share_cell(two, games, TARGET_2P), _share_cell(four, tables, TARGET_4P))
        row += (f"{p50 * 1000:.0f} ms", f"{p95 * 1000:.0f} ms {mark} ({len(times)} moves)")
        say(markdown_table(head, [(*row, f"{(p95_of(walls) if walls else 0.0) * 1000:.0f} ms")])[2])
    if STUCK:
        say(f"stopped after {MAX_GAME_ACTIONS} actions, scored as they stood: {STUCK}")
    return lines


def _share_cell(share: float, count: int, target: float) -> str:
    """The share, its standard error and the target's mark: "47.8% of 200 ± 3.5 ok"."""
    if not count:
        return "not run"
    error = math.sqrt(share * (1 - share) / count)
    mark = "ok" if share >= target else f"(target {target:.0%})"
    return f"{share:.1%} of {count} ± {error * 100:.1f} {mark}"


def main(argv: list[str] | None = None) -> None:
    args = cli(
        __doc__, argv, TINY,
        ("--games", 100, "2-player games per game"),
        ("--tables", 40, "4-player tables per game"),
        ("--seconds", None, "time budget per move", {"type": float}),
        ("--playouts", None, "playout cap per move", {"type": int}),
        ("--game", None, "only this game", {"choices": sorted(GAMES), "action": "append"}),
        ("--seed-offset", 0, "deal other games than the default run"),
        ("--jobs", 1, "processes at once, each a range of the tables (the same as one process)"),
    )  # fmt: skip
    budget = TINY_BUDGET if args.tiny else DEFAULT_BUDGET
    if args.playouts is not None:
        budget = replace(budget, playouts=args.playouts)
    if args.seconds is not None:
        budget = replace(budget, seconds=args.seconds or None)
    with dated("bots.py", argv):
        run(
            args.games, args.tables, budget, args.game or sorted(GAMES), args.seed_offset, args.jobs
        )


if __name__ == "__main__":
    main()
