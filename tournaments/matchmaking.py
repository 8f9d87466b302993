"""League matchmaking: which waiting members sit down together. Pure Python, no Django.

``match_tables`` gets the waiting members (id, rating, open slots, tables not to re-form,
priority) and returns the new tables; ``tournaments.leagues.matchmaker_pass`` reads the members
from the database, calls it and creates the games. The rules:

* Waves: a member with k open slots (league games they want but do not have) may be seated at
  up to k new tables in one pass, one per wave. Each wave seats the members who still have an
  open slot; it ends when fewer than ``min_players`` are left.
* Table sizes (``table_sizes``): as few tables as possible, so as many ``max_players`` tables
  as the count allows, with sizes as even as possible (10 at 2-4 -> 4+3+3). If the count cannot
  be split within [min_players, max_players] (5 at exactly 4), as many full tables as fit
  and the rest wait for the next pass.
* Who waits when not everyone fits: members seated fewer times in this pass first, then higher
  ``priority`` (the caller passes the longest waiting first), then input order.
* Close ratings together: the seated members of a wave are sorted by rating (best first, equal
  ratings in input order) and cut into consecutive tables, the biggest tables first.
* No table twice in a row: a table is a repeat when its exact set of players is one of the
  ``previous`` tables of one of its members (the caller passes the member's last league table
  and their running ones; the tables this pass forms are added as it goes). Repeats are
  repaired by swapping one player with a neighbouring table, nearest tables first (up to
  ``reach`` tables away), or with a member who waits this wave, while that lowers the number
  of repeats; among the swaps at the nearest distance that offers one, the smallest rating gap
  wins. A repeat stays only when no such swap exists, e.g. when nobody else is waiting.

* Bots at short tables (``short_tables``, for a league with a bot level): the members a pass
  leaves with an open slot are fewer than ``min_players`` in every wave (else the wave would
  have seated them); each such wave sits at one more table, in rating order, that the caller
  fills with bots up to ``min_players``: a member of a thin league is never left waiting.

Deterministic: equal input gives equal output. Cost: a sort and a linear cut per wave, plus a
few dozen table checks per repeat repaired (see ``bench/pairing.py``, ``matchmaker``).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field

__all__ = ["Candidate", "match_tables", "short_tables", "table_sizes"]

MemberId = Hashable


@dataclass(frozen=True, slots=True)
class Candidate:
    """A league member waiting for games.

    ``slots``: how many more league games the member may be seated in (their limit minus their
    running games). ``previous``: player sets (each including the member) that must not be
    re-formed. ``priority``: who is seated first when not everyone fits, higher first.
    """

    id: MemberId
    rating: float = 1500.0
    slots: int = 1
    previous: Collection[Collection[MemberId]] = field(default=())
    priority: float = 0.0
    #: members never to sit with (a block, either way: accounts.blocks)
    apart: Collection[MemberId] = field(default=())


def table_sizes(n: int, min_players: int = 2, max_players: int = 4) -> list[int]:
    """Table sizes for n waiting members, biggest first; their sum is n or, when n cannot be
    split within the bounds, as many full ``max_players`` tables as fit (the rest wait)."""
    _check_bounds(min_players, max_players)
    if n < 0:
        raise ValueError(f"cannot seat {n} members")
    if n < min_players:
        return []
    tables = -(-n // max_players)
    if tables * min_players <= n:
        base, extra = divmod(n, tables)
        return [base + 1] * extra + [base] * (tables - extra)
    return [max_players] * (tables - 1)


def match_tables(
    candidates: Sequence[Candidate],
    min_players: int = 2,
    max_players: int = 4,
    *,
    reach: int = 8,
) -> list[list[MemberId]]:
    """The new tables for one matchmaker pass, as lists of member ids (each in rating order,
    best first). See the module docstring for the rules."""
    _check_bounds(min_players, max_players)
    if reach < 1:
        raise ValueError(f"reach must be at least 1, got {reach!r}")
    n = len(candidates)
    ids = [c.id for c in candidates]
    if len(set(ids)) != n:
        raise ValueError("a member appears twice")
    ratings = [float(c.rating) for c in candidates]
    slots = [int(c.slots) for c in candidates]
    avoid: list[set[frozenset[MemberId]]] = [{frozenset(t) for t in c.previous} for c in candidates]
    # Members are referred to by their position in the rating order (0 = best) from here on.
    order = sorted(range(n), key=lambda i: (-ratings[i], i))
    seating = _Seating(
        ids=[ids[i] for i in order],
        ratings=[ratings[i] for i in order],
        avoid=[avoid[i] for i in order],
        reach=reach,
        apart=[set(candidates[i].apart) for i in order],
    )
    priority = [candidates[i].priority for i in order]
    left = [slots[i] for i in order]
    seated_now = [0] * n
    result: list[list[MemberId]] = []
    while True:
        wave = [r for r in range(n) if left[r] > 0]
        sizes = table_sizes(len(wave), min_players, max_players)
        if not sizes:
            break
        bench: list[int] = []
        if sum(sizes) < len(wave):
            first = sorted(wave, key=lambda r: (seated_now[r], -priority[r], order[r]))
            keep = set(first[: sum(sizes)])
            bench = [r for r in wave if r not in keep]
            wave = [r for r in wave if r in keep]
        tables = seating.cut(wave, sizes)
        seating.repair(tables, bench)
        for table in tables:
            key = frozenset(seating.ids[r] for r in table)
            for r in table:
                left[r] -= 1
                seated_now[r] += 1
                seating.avoid[r].add(key)
            if not seating.blocked(table):  # else its members wait for the next pass
                result.append([seating.ids[r] for r in sorted(table)])
    return result


def short_tables(
    candidates: Sequence[Candidate], tables: Sequence[Sequence[MemberId]], min_players: int = 2
) -> list[list[MemberId]]:
    """The members ``match_tables`` left with an open slot (``tables`` is what it returned),
    as tables of fewer than ``min_players`` members each (best rated first) for the caller to
    fill with bots: one table per wave of the members still waiting, as in ``match_tables``."""
    _check_bounds(min_players, min_players)
    seated = Counter(member for table in tables for member in table)
    left = {c.id: int(c.slots) - seated[c.id] for c in candidates}
    ranked = sorted(range(len(candidates)), key=lambda i: (-float(candidates[i].rating), i))
    order = [candidates[i].id for i in ranked]
    apart = {c.id: set(c.apart) for c in candidates}
    result: list[list[MemberId]] = []
    while True:
        wave = [m for m in order if left[m] > 0]
        if not wave:
            return result
        for start in range(0, len(wave), min_players - 1):
            table = wave[start : start + min_players - 1]
            if any(apart[m] & set(table) for m in table):  # a block: each with bots alone
                result.extend([m] for m in table)
            else:
                result.append(table)
        for member in wave:
            left[member] -= 1


def _check_bounds(min_players: int, max_players: int) -> None:
    for value in (min_players, max_players):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"table sizes must be integers, got {value!r}")
    if not 2 <= min_players <= max_players:
        raise ValueError(f"need 2 <= min_players <= max_players, got {min_players}, {max_players}")


class _Seating:
    """Cutting and repairing one wave; members are ranks in the rating order (0 = best)."""

    def __init__(
        self,
        ids: list[MemberId],
        ratings: list[float],
        avoid: list[set[frozenset[MemberId]]],
        reach: int,
        apart: list[set[MemberId]] | None = None,
    ) -> None:
        self.ids = ids
        self.ratings = ratings
        self.avoid = avoid
        self.reach = reach
        self.apart = apart or [set() for _ in ids]

    @staticmethod
    def cut(wave: list[int], sizes: list[int]) -> list[list[int]]:
        tables, start = [], 0
        for size in sizes:
            tables.append(wave[start : start + size])
            start += size
        return tables

    def blocked(self, table: Sequence[int]) -> bool:
        """Two members of the table must not sit together (a block)."""
        members = {self.ids[r] for r in table}
        return any(self.apart[r] & members for r in table)

    def cost(self, table: Sequence[int]) -> int:
        """2 if two of its members must not sit together, plus 1 if the table re-forms a
        previous table of one of its members: the repair swaps blocks away first."""
        penalty = 2 if self.blocked(table) else 0
        if not any(self.avoid[r] for r in table):
            return penalty
        key = frozenset(self.ids[r] for r in table)
        return penalty + int(any(key in self.avoid[r] for r in table))

    def repair(self, tables: list[list[int]], bench: list[int]) -> None:
        """Swap players while that lowers the number of repeated tables (each accepted swap
        lowers it, so this ends)."""
        costs = [self.cost(t) for t in tables]
        bench.sort()
        improved = any(costs)
        while improved:
            improved = False
            for i in range(len(tables)):
                if costs[i] and self._swap(tables, costs, bench, i):
                    improved = True

    def _swap(self, tables: list[list[int]], costs: list[int], bench: list[int], i: int) -> bool:
        table = tables[i]
        gap = self.ratings
        # A member who waits this wave (at most max_players of them).
        best: tuple[float, int, int] | None = None
        for ai, a in enumerate(table):
            for b in bench:
                new = [*table[:ai], b, *table[ai + 1 :]]
                if self.cost(new) < costs[i]:
                    key = abs(gap[a] - gap[b])
                    if best is None or key < best[0]:
                        best = (key, ai, b)
        for distance in range(1, min(len(tables), self.reach + 1)):
            found: tuple[float, int, int, int, list[int], list[int]] | None = None
            for j in (i - distance, i + distance):
                if not 0 <= j < len(tables):
                    continue
                other = tables[j]
                before = costs[i] + costs[j]
                for ai, a in enumerate(table):
                    for bi, b in enumerate(other):
                        new_i = [*table[:ai], b, *table[ai + 1 :]]
                        new_j = [*other[:bi], a, *other[bi + 1 :]]
                        ci, cj = self.cost(new_i), self.cost(new_j)
                        if ci + cj < before:
                            key = abs(gap[a] - gap[b])
                            if found is None or key < found[0]:
                                found = (key, j, ci, cj, new_i, new_j)
            if found is not None and (best is None or found[0] <= best[0]):
                _, j, ci, cj, new_i, new_j = found
                tables[i], tables[j] = new_i, new_j
                costs[i], costs[j] = ci, cj
                return True
            if found is not None or best is not None:
                break
        if best is not None:
            _, ai, b = best
            a = table[ai]
            tables[i] = [*table[:ai], b, *table[ai + 1 :]]
            costs[i] = self.cost(tables[i])
            bench.remove(b)
            bisect.insort(bench, a)
            return True
        return False
