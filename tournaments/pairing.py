"""Pairings for tournaments: FIDE Berger round robins, Swiss tables of 2-4, elimination brackets.

Pure Python on purpose: no Django import, so pairing rules are testable, benchmarkable and
reusable without configured settings (the models call these functions, not the reverse).

Swiss tables, the rules in full (``swiss_tables``):

* Ranking: players are sorted by tournament points, then rating, both descending; equal
  players keep the order they were given in (so equal input gives equal output).
* Table sizes (``table_sizes``): as few tables as possible, ``ceil(n / table_size)``, with sizes
  as even as possible. With ``table_size=4`` that is 4s and 3s for every n >= 6 (10 -> 4+3+3,
  9 -> 3+3+3); n = 5 -> 3+2, n = 4 -> 4, n = 3 -> 3, n = 2 -> 2 and n = 1 -> a bye. With
  ``table_size=3``, 3s and 2s (4 -> 2+2). With ``table_size=2`` it is pairs, and one bye when
  n is odd. A bye is a table of one player.
* Seating: top-down in ranking order. The highest-ranked player not yet seated opens the next
  table (a full-size one if possible) and the best-ranked players who met nobody at that table
  fill it, so tables are cut from the ranking (1-4, 5-8, ...) unless that would repeat an
  opponent. For 2-player tables the partner is chosen as in the classic Swiss (FIDE Dutch)
  fold instead: within the score group, the top half meets the bottom half in order (1-5,
  2-6, 3-7, 4-8 in a group of 8), an odd player floats down to the next group, and a repeat
  tries the next player in that order.
* Bye: decided first, as in the classic Swiss: the lowest-ranked player who has not had a
  bye gets it (the next one up if the others cannot then be seated without repeats).
* Repeats: the search backtracks (depth-first) to the first seating in that order where
  nobody meets anyone again. If it proves there is none, a branch-and-bound pass finds the
  first seating with the fewest repeated pairs (a bye to a player who had one counts as one).
  Both passes share ``search_budget`` (candidates examined); if it runs out, a greedy seating
  is repaired by swapping players between tables, nearest tables first, while that lowers the
  repeats, preferring the swap with the smallest points gap, then rank gap.
* Output: tables best first (by their best player), the bye last; within a table, players in
  ranking order.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "SwissPlayer",
    "round_robin",
    "single_elimination_seeding",
    "swiss_tables",
    "table_sizes",
]

PlayerId = Hashable
#: A search move: (rank, size, repeats it adds); see ``_Seating._moves``.
Move = tuple[int, int, int]


# --- Round robin --------------------------------------------------------------------------------


def round_robin(n: int) -> list[list[tuple[int, int]]]:
    """The FIDE Berger table (Handbook C.05, Annex 1) for n players, round by round.

    Each round lists its pairings as (white, black) in the printed board order. Player numbers
    are 1-based; for odd n the table for n + 1 is used and player n + 1 is the bye.

    Construction (it reproduces the printed tables): player N = n rounded up to even stays
    fixed; the others sit in a ring ``a`` that advances by N / 2 places a round, starting at
    1, 2, ..., N - 1. Board 1 is ``a[0]`` against N, ``a[0]`` white in odd rounds and N white
    in even ones; board k >= 2 is ``a[k-1]`` (white) against ``a[N-k]``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {n!r}")
    size = n + n % 2
    half = size // 2
    ring = size - 1
    rounds = []
    for r in range(ring):
        a = [(i + r * half) % ring + 1 for i in range(ring)]
        board_1 = (a[0], size) if r % 2 == 0 else (size, a[0])
        rounds.append([board_1] + [(a[k], a[ring - k]) for k in range(1, half)])
    return rounds


# --- Single elimination -------------------------------------------------------------------------


def single_elimination_seeding(n: int) -> list[tuple[int, int | None]]:
    """First-round matches of a seeded bracket for n players (seed 1 = best), top to bottom.

    Each match is (higher seed, lower seed or None for a bye). The bracket has the next power
    of two of slots; the seeds that would meet the missing players get byes, which are the top
    seeds. Seeds of a match add up to the bracket size + 1 in every round if favourites win,
    so seeds 1 and 2 can only meet in the final, 1-4 only in the semi-finals, and so on. The
    order is the one printed for 16 (NCAA regions: 1-16, 8-9, 5-12, 4-13, 6-11, 3-14, 7-10,
    2-15; for 8: 1-8, 4-5, 3-6, 2-7). It is built by doubling the bracket: a match x-y of the
    bracket half the size becomes x's and y's first-round matches, whose winners meet there;
    x's comes first only for seed 1, which puts seed 2 at the bottom as printed.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"a bracket needs at least 2 players, got {n!r}")
    tops = [1]  # top seed of each match, in bracket order, for a bracket of 2 * len(tops)
    while 2 * len(tops) < n:
        slots = 2 * len(tops) + 1
        tops = [seed for x in tops for seed in ((x, slots - x) if x == 1 else (slots - x, x))]
    size = 2 * len(tops)
    return [(x, size + 1 - x if size + 1 - x <= n else None) for x in tops]


# --- Swiss --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """One player entering a Swiss round: ``id`` is whatever the caller uses (a user id)."""

    id: PlayerId
    points: float = 0.0
    rating: float = 1500.0


def table_sizes(n: int, table_size: int = 4) -> list[int]:
    """Sizes of the tables for n players: fewest tables, sizes as even as possible, big first.

    A size of 1 is a bye (only for odd n with ``table_size=2``, or n = 1).
    """
    if n < 0:
        raise ValueError(f"cannot seat {n} players")
    if table_size < 2:
        raise ValueError(f"tables seat at least 2 players, got table_size={table_size}")
    if n == 0:
        return []
    tables = -(-n // table_size)
    base, extra = divmod(n, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def swiss_tables(
    players: Sequence[SwissPlayer],
    table_size: int = 4,
    history: Iterable[Collection[PlayerId]] = (),
    *,
    search_budget: int = 200_000,
) -> list[list[PlayerId]]:
    """Seat one Swiss round: the tables as lists of player ids, the best table first.

    ``history`` holds the tables of earlier rounds (any collection of ids, e.g. this
    function's own results; pairs work too): players who sat at one table have met, and a
    table of one was a bye. Ids not in ``players`` are ignored. Within a table players are
    in ranking order; a table of one is a bye. See the module docstring for the rules.
    """
    if isinstance(table_size, bool) or not isinstance(table_size, int) or table_size < 2:
        raise ValueError(f"tables seat at least 2 players, got table_size={table_size!r}")
    seen: set[PlayerId] = set()
    for player in players:
        if player.id in seen:
            raise ValueError(f"player {player.id!r} appears twice")
        seen.add(player.id)
        for value in (player.points, player.rating):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"points and rating must be numbers, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"points and rating must be finite, got {value!r}")

    order = sorted(range(len(players)), key=lambda i: (-players[i].points, -players[i].rating, i))
    ranked = [players[i] for i in order]
    tables = _Seating(ranked, table_size, history).seat(search_budget)
    # Best table first, the bye (a table of one) last.
    tables.sort(key=lambda t: (len(t) == 1, t[0]))
    return [[ranked[r].id for r in table] for table in tables]


class _Seating:
    """Search state for one Swiss round; players are referred to by rank (0 = best)."""

    #: Soft greedy: how many of the next preferred players it weighs for each seat.
    WINDOW = 12
    #: Local search: how many tables up and down a player may be swapped.
    REACH = 64

    def __init__(
        self, ranked: Sequence[SwissPlayer], table_size: int, history: Iterable[Collection]
    ) -> None:
        self.n = n = len(ranked)
        self.points = [p.points for p in ranked]
        self.sizes = table_sizes(n, table_size)
        self.fold = table_size == 2
        rank_of = {p.id: r for r, p in enumerate(ranked)}
        self.met: list[set[int]] = [set() for _ in range(n)]
        self.had_bye = [False] * n
        for table in history:
            ranks = [rank_of[i] for i in table if i in rank_of]
            if len(table) == 1 and ranks:
                self.had_bye[ranks[0]] = True
            for a, b in itertools.combinations(ranks, 2):
                if a != b:
                    self.met[a].add(b)
                    self.met[b].add(a)
        # Score groups: runs of equal points in the ranking (for the 2-player fold).
        self.group_of = [0] * n
        self.group_end: list[int] = []
        for r in range(n):
            if r and self.points[r] != self.points[r - 1]:
                self.group_end.append(r)
            self.group_of[r] = len(self.group_end)
        self.group_end.append(n)
        # Depth-first search state.
        self.taken = bytearray(n)
        self.seated = 0
        self.tables: list[list[int]] = []
        self.targets: list[int] = []
        self.bye: int | None = None
        self.sizes_left: dict[int, int] = {}
        for size in self.sizes:
            if size > 1:  # a table of one is the bye, decided first
                self.sizes_left[size] = self.sizes_left.get(size, 0) + 1
        self.group_free: list[list[int]] = [[] for _ in self.group_end]
        for r in range(n):
            self.group_free[self.group_of[r]].append(r)
        self.work = 0
        self.repeats = 0
        self.allowance = 0

    # Conflicts ---------------------------------------------------------------------------

    def clashes(self, r: int, table: Sequence[int]) -> int:
        """How many players of ``table`` rank r has met before."""
        met = self.met[r]
        return sum(1 for t in table if t in met)

    def cost(self, table: Sequence[int]) -> int:
        """Repeated pairs at a table, plus one for a bye to a player who already had one."""
        if len(table) == 1:
            return int(self.had_bye[table[0]])
        return sum(1 for a, b in itertools.combinations(table, 2) if b in self.met[a])

    # Exact search ----------------------------------------------------------------------------

    def seat(self, budget: int) -> list[list[int]]:
        """The seating: repeat-free if possible, else with as few repeats as found in budget.

        1. A depth-first search for the first repeat-free seating in preference order.
        2. If it proves there is none, a branch-and-bound pass over the same order for the
           first seating with the fewest repeats.
        3. If the budget (candidates examined over both passes) runs out first, a greedy
           seating repaired by swaps, or the best one the search found, whichever has fewer.
        """
        if self.n == 0:
            return []
        self.work = 0
        tables = self._depth_first(0, budget, first=True)
        if tables is not None:
            return tables
        if self.work <= budget:
            worst = sum(size * (size - 1) // 2 for size in self.sizes) + 1
            tables = self._depth_first(worst, budget, first=False)
            if self.work <= budget:
                return tables  # complete pass: the fewest repeats there are
        fallback = self.improve(self.greedy())
        if tables is None or self.total_cost(fallback) < self.total_cost(tables):
            return fallback
        return tables

    def total_cost(self, tables: Iterable[Sequence[int]]) -> int:
        return sum(self.cost(t) for t in tables)

    def _depth_first(self, allowance: int, budget: int, *, first: bool) -> list[list[int]] | None:
        """Seatings with at most ``allowance`` repeats, in preference order: the first one
        (``first``), or branch and bound: each seating found lowers the allowance below its
        own repeats, so the last one found is the first with the fewest. The state is left as
        it was; None if nothing was found (in budget)."""
        self.allowance = allowance
        best = None
        stack: list[Iterator[Move]] = [self._moves()]
        applied: list[Move] = []
        while stack and self.work <= budget:
            move = next(stack[-1], None)
            if move is None:
                stack.pop()
                if applied:
                    self._undo(applied.pop())
                continue
            self._apply(move)
            if self.seated < self.n:
                applied.append(move)
                stack.append(self._moves())
                continue
            best = [list(t) for t in self.tables]
            if self.bye is not None:
                best.append([self.bye])
            self.allowance = self.repeats - 1
            self._undo(move)
            if first:
                break
        while applied:
            self._undo(applied.pop())
        return best

    def _moves(self) -> Iterator[Move]:
        """Moves from the current state, as (rank, size, repeats it adds): size > 1 opens a
        table, 0 joins the open table, -1 gives the bye (the first decision, if any)."""
        if self.seated == 0 and self.sizes[-1] == 1:
            return self._byes()
        if self.tables and len(self.tables[-1]) < self.targets[-1]:
            return self._joiners()
        return self._openers()

    def _byes(self) -> Iterator[Move]:
        for r in range(self.n - 1, -1, -1):
            self.work += 1
            cost = int(self.had_bye[r])
            if self.repeats + cost <= self.allowance:
                yield (r, -1, cost)

    def _openers(self) -> Iterator[Move]:
        # The best unseated player opens the next table; every rank above the previous
        # opener is seated already, so the scan starts there.
        r = self.tables[-1][0] + 1 if self.tables else 0
        while self.taken[r]:
            r += 1
        left = self.n - self.seated
        for size in sorted(self.sizes_left, reverse=True):
            self.work += 1
            if self.sizes_left[size] and size <= left and self.repeats <= self.allowance:
                yield (r, size, 0)

    def _joiners(self) -> Iterator[Move]:
        table = self.tables[-1]
        if self.fold and self.targets[-1] == 2:
            candidates = self._fold_order(table[0])
        else:
            # Ranks above the last member were tried for this seat already (combinations).
            candidates = (r for r in range(table[-1] + 1, self.n) if not self.taken[r])
        for r in candidates:
            self.work += 1
            room = self.allowance - self.repeats  # branch and bound lowers the allowance
            if room < 0:
                return
            cost = self.clashes(r, table) if room else int(any(t in self.met[r] for t in table))
            if cost <= room:
                yield (r, 0, cost)

    def _fold_order(self, opener: int) -> Iterator[int]:
        """Partners for ``opener`` in classic Swiss order: its score group folded, then below.

        In a group that still holds m players besides the opener, the opener's natural
        partner is the one heading the group's bottom half; then the players below that one,
        then the top half from its lowest member up (the smallest exchange), then the
        players of lower score groups in ranking order.
        """
        group = self.group_of[opener]
        free = self.group_free[group]  # the opener is out already; restored on backtracking
        m = len(free)
        start = max(0, (m + 1) // 2 - 1)  # m = 0: no partner in the group
        for i in itertools.chain(range(start, m), range(start - 1, -1, -1)):
            yield free[i]
        for r in range(self.group_end[group], self.n):
            if not self.taken[r]:
                yield r

    def _apply(self, move: Move) -> None:
        r, size, cost = move
        self.repeats += cost
        if size < 0:
            self.bye = r
        elif size:
            self.tables.append([r])
            self.targets.append(size)
            self.sizes_left[size] -= 1
        else:
            self.tables[-1].append(r)
        self.taken[r] = 1
        self.seated += 1
        if self.fold:
            free = self.group_free[self.group_of[r]]
            del free[bisect.bisect_left(free, r)]

    def _undo(self, move: Move) -> None:
        r, size, cost = move
        self.repeats -= cost
        if size < 0:
            self.bye = None
        elif size:
            self.tables.pop()
            self.targets.pop()
            self.sizes_left[size] += 1
        else:
            self.tables[-1].pop()
        self.taken[r] = 0
        self.seated -= 1
        if self.fold:
            bisect.insort(self.group_free[self.group_of[r]], r)

    # Fallback: greedy seating and local repair -------------------------------------------

    def greedy(self) -> list[list[int]]:
        """Top-down seating that allows repeats: each seat takes the fewest clashes nearby."""
        sizes = list(self.sizes)
        free = list(range(self.n))
        bye = None
        if sizes and sizes[-1] == 1:
            sizes.pop()
            eligible = [r for r in reversed(free) if not self.had_bye[r]]
            bye = eligible[0] if eligible else free[-1]
            free.remove(bye)
        tables = []
        for size in sizes:
            table = [free.pop(0)]
            while len(table) < size:
                if self.fold:
                    group = self.group_of[table[0]]
                    lo = bisect.bisect_left(free, table[0])
                    hi = bisect.bisect_left(free, self.group_end[group])
                    m = hi - lo
                    start = max(0, (m + 1) // 2 - 1)  # m = 0: no partner in the group
                    indices = itertools.chain(
                        range(lo + start, hi),
                        range(lo + start - 1, lo - 1, -1),
                        range(hi, len(free)),
                    )
                else:
                    indices = iter(range(len(free)))
                window = list(itertools.islice(indices, self.WINDOW))
                clashes = [self.clashes(free[i], table) for i in window]
                table.append(free.pop(window[clashes.index(min(clashes))]))
            tables.append(table)
        if bye is not None:
            tables.append([bye])
        return tables

    def improve(self, tables: list[list[int]]) -> list[list[int]]:
        """Swap players between tables while that lowers the repeats; then tidy up.

        Every accepted swap strictly lowers the total cost, so this ends. For a table with
        repeats, the nearest tables are tried first (up to ``REACH`` tables away) and the
        first distance that offers an improving swap gives it: the one with the smallest
        points gap, then rank gap, so players move as little as the repeats allow.
        """
        costs = [self.cost(t) for t in tables]
        improved = True
        while improved:
            improved = False
            for i in range(len(tables)):
                if costs[i]:
                    swap = self._best_swap(tables, costs, i)
                    if swap is not None:
                        j, new_i, new_j = swap
                        tables[i], tables[j] = new_i, new_j
                        costs[i], costs[j] = self.cost(new_i), self.cost(new_j)
                        improved = True
        return [sorted(t) for t in tables]

    def _best_swap(
        self, tables: list[list[int]], costs: list[int], i: int
    ) -> tuple[int, list[int], list[int]] | None:
        table = tables[i]
        for distance in range(1, min(len(tables), self.REACH + 1)):
            best = None
            for j in (i - distance, i + distance):
                if not 0 <= j < len(tables):
                    continue
                other = tables[j]
                before = costs[i] + costs[j]
                for ai, a in enumerate(table):
                    for bi, b in enumerate(other):
                        new_i = [*table[:ai], b, *table[ai + 1 :]]
                        new_j = [*other[:bi], a, *other[bi + 1 :]]
                        if self.cost(new_i) + self.cost(new_j) < before:
                            key = (abs(self.points[a] - self.points[b]), abs(a - b), j, ai, bi)
                            if best is None or key < best[0]:
                                best = (key, j, new_i, new_j)
            if best is not None:
                return best[1], best[2], best[3]
        return None
