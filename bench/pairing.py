"""Pairing benchmark, run by hand (docs/benchmarks.md).

The time to seat one Swiss round of N players at 4-player tables after R simulated rounds,
the same with the bottom players all having met (the worst case), and a matchmaker pass over
N waiting league members. Targets: under 1 s each.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cli, dated
from bench.measure import median
from tournaments.elo import k_factor, multiplayer_elo
from tournaments.matchmaking import Candidate, match_tables
from tournaments.pairing import SwissPlayer, swiss_tables

TARGET_SWISS_S = 1.0
TARGET_MATCHMAKER_S = 1.0
TINY = {"players": 40, "rounds": 2, "repeats": 1}
T = TypeVar("T")


def play_round(
    tables: list[list[int]], points: dict[int, float], ratings: dict[int, float],
    games: dict[int, int], rng: random.Random,
) -> None:  # fmt: skip
    """Play every table: places from a noisy rating, points = opponents beaten, Elo rated."""
    for table in tables:
        if len(table) == 1:  # a bye scores as a win
            points[table[0]] += 1
            continue
        form = {p: ratings[p] + rng.gauss(0, 200) for p in table}
        order = sorted(table, key=lambda p: -form[p])
        places = [order.index(p) + 1 for p in table]
        ks = [k_factor(games[p], ratings[p], ratings[p]) for p in table]
        new = multiplayer_elo([ratings[p] for p in table], places, ks)
        for p, place, rating in zip(table, places, new, strict=True):
            points[p] += len(table) - place
            ratings[p] = rating
            games[p] += 1


def simulate(
    n: int, rounds: int, table_size: int, seed: int
) -> tuple[list[SwissPlayer], list[list[int]]]:
    """The field and history after ``rounds`` rounds: the input of the next pairing."""
    rng = random.Random(seed)
    ratings = {p: rng.gauss(1500, 250) for p in range(n)}
    points = dict.fromkeys(range(n), 0.0)
    games = dict.fromkeys(range(n), 30)
    history: list[list[int]] = []
    for _ in range(rounds):
        players = [SwissPlayer(p, points[p], ratings[p]) for p in range(n)]
        tables = swiss_tables(players, table_size, history)
        play_round(tables, points, ratings, games, rng)
        history.extend(tables)
    return [SwissPlayer(p, points[p], ratings[p]) for p in range(n)], history


def timed(repeats: int, seat: Callable[[], T]) -> tuple[float, float, T]:
    """Median and best seconds of ``repeats`` calls of ``seat``, and its last seating."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        tables = seat()
        times.append(time.perf_counter() - start)
    return median(times), min(times), tables


def repeats_in(tables: list[list[int]], history: list[list[int]]) -> int:
    met = {frozenset(p) for t in history for p in itertools.combinations(t, 2)}
    return sum(1 for t in tables for p in itertools.combinations(t, 2) if frozenset(p) in met)


def bench_swiss_round(args: argparse.Namespace) -> list[str]:
    """The target case: one round of a large Swiss with a realistic history."""
    start = time.perf_counter()
    players, history = simulate(args.players, args.rounds, args.table_size, args.seed)
    setup = time.perf_counter() - start
    mid, best, tables = timed(args.repeats, lambda: swiss_tables(players, args.table_size, history))
    sizes = sorted({len(t) for t in tables}, reverse=True)
    mark = "ok" if mid < TARGET_SWISS_S else f"ABOVE {TARGET_SWISS_S:.0f} s"
    return [
        f"field: {args.players} players, {args.rounds} rounds played ({setup:.1f} s to simulate), "
        f"{len({p.points for p in players})} score groups, {len(history)} earlier tables",
        f"round {args.rounds + 1}: {len(tables)} tables of {sizes}, "
        f"{repeats_in(tables, history)} repeated pairs",
        f"seating time: median {mid:.3f} s, best {best:.3f} s over {args.repeats} runs  {mark}",
    ]


def bench_swiss_dense_bottom(args: argparse.Namespace) -> list[str]:
    """The worst case: the lowest 12 players all met, the greedy seating's repair takes over."""
    n = args.players
    players = [SwissPlayer(p, 0.0, 3000 - p * 0.1) for p in range(n)]
    history = [list(p) for p in itertools.combinations(range(n - 12, n), 2)]
    mid, best, tables = timed(args.repeats, lambda: swiss_tables(players, args.table_size, history))
    return [
        f"{n} players, the bottom 12 all met: {repeats_in(tables, history)} repeated pairs, "
        f"median {mid:.3f} s, best {best:.3f} s",
    ]


def bench_matchmaker(args: argparse.Namespace) -> list[str]:
    """A matchmaker pass over N waiting members (1-3 slots each), every previous table the one
    the rating order would cut again: each first-wave table needs a repair."""
    rng = random.Random(args.seed)
    n = args.players
    fresh = [
        Candidate(id=i, rating=rng.gauss(1500, 250), slots=1, priority=rng.random())
        for i in range(n)
    ]
    previous = {member: table for table in match_tables(fresh, 2, 4) for member in table}
    members = [
        Candidate(
            id=c.id, rating=c.rating, slots=rng.choice((1, 1, 2, 2, 3)),
            previous=[previous[c.id]] if c.id in previous else [], priority=c.priority,
        )
        for c in fresh
    ]  # fmt: skip
    mid, best, tables = timed(args.repeats, lambda: match_tables(members, 2, 4))
    # a table re-formed: one of the previous pass, or one formed twice in this pass
    seen = {frozenset(t) for t in previous.values()}
    repeats = 0
    for table in map(frozenset, tables):
        repeats += table in seen
        seen.add(table)
    sizes = sorted(Counter(len(t) for t in tables).items(), reverse=True)
    gaps = [max(members[m].rating for m in t) - min(members[m].rating for m in t) for t in tables]
    mark = "ok" if mid < TARGET_MATCHMAKER_S else f"ABOVE {TARGET_MATCHMAKER_S:.0f} s"
    return [
        f"{n} waiting members, {sum(c.slots for c in members)} open slots, every previous table "
        "due to be re-formed",
        f"{len(tables)} tables ({', '.join(f'{c} of {s}' for s, c in sizes)}), "
        f"{sum(len(t) for t in tables)} seats, {repeats} re-formed tables, rating spread at a "
        f"table: median {median(gaps):.1f}, worst {max(gaps):.0f}",
        f"matchmaking time: median {mid:.3f} s, best {best:.3f} s over {args.repeats} runs  {mark}",
    ]


BENCHES: dict[str, Callable[[argparse.Namespace], list[str]]] = {
    "swiss-round": bench_swiss_round,
    "swiss-dense-bottom": bench_swiss_dense_bottom,
    "matchmaker": bench_matchmaker,
}


def main(argv: list[str] | None = None) -> None:
    args = cli(
        __doc__, argv, TINY,
        ("--players", 10_000, "players in the field"),
        ("--rounds", 5, "rounds played before"),
        ("--table-size", 4, "players a table"),
        ("--repeats", 5, "timed runs of each pairing"),
        ("--seed", 2026, "seed of the simulation"),
        ("--only", None, "run only these", {"choices": sorted(BENCHES), "action": "append"}),
    )  # fmt: skip
    with dated("pairing.py", argv):
        print(f"python {sys.version.split()[0]}, one process (one core)")
        for name, bench in BENCHES.items():
            if not args.only or name in args.only:
                print(f"\n== {name}")
                print("\n".join(bench(args)))
        print()


if __name__ == "__main__":
    main()
