"""Pairings (tournaments/pairing.py): FIDE Berger tables, Swiss tables, elimination seeding."""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing import (
    SwissPlayer,
    round_robin,
    single_elimination_seeding,
    swiss_tables,
    table_sizes,
)

REPO_ROOT = Path(__file__).resolve().parents[2]

# --- Round robin: the printed FIDE tables --------------------------------------------------------

# FIDE Handbook C.05 (General Regulations for Competitions), Annex 1, "Berger Tables for
# Round-Robin Tournaments", as printed: "Where there is an odd number of players, the highest
# number counts as a bye." Pairings are white-black, boards in printed order. Transcribed from
# the handbook text (quoted in full, 3-4 to 15-16 players, in the docstring of the Gambit
# Pairing project's round-robin module) and cross-checked row by row against two independent
# reprints: Chris Fox's "Berger Tables" page (c.w.fox.tripod.com/chess/berger.html; 3-4 to
# 11-12 and the first rows of 13-14) and the "Crenshaw-Berger Tables" sheet on Scribd
# (document 381712253; 3-4 to 13-14). All three agree; the handbook quote has "2-9. 3-8" for
# "2-9, 3-8" in round 10 of 13-14, a typo that the other two print correctly.
FIDE_BERGER = {
    4: """
        Rd 1: 1-4, 2-3.
        Rd 2: 4-3, 1-2.
        Rd 3: 2-4, 3-1.
    """,
    6: """
        Rd 1: 1-6, 2-5, 3-4.
        Rd 2: 6-4, 5-3, 1-2.
        Rd 3: 2-6, 3-1, 4-5.
        Rd 4: 6-5, 1-4, 2-3.
        Rd 5: 3-6, 4-2, 5-1.
    """,
    8: """
        Rd 1: 1-8, 2-7, 3-6, 4-5.
        Rd 2: 8-5, 6-4, 7-3, 1-2.
        Rd 3: 2-8, 3-1, 4-7, 5-6.
        Rd 4: 8-6, 7-5, 1-4, 2-3.
        Rd 5: 3-8, 4-2, 5-1, 6-7.
        Rd 6: 8-7, 1-6, 2-5, 3-4.
        Rd 7: 4-8, 5-3, 6-2, 7-1.
    """,
    10: """
        Rd 1: 1-10, 2-9, 3-8, 4-7, 5-6.
        Rd 2: 10-6, 7-5, 8-4, 9-3, 1-2.
        Rd 3: 2-10, 3-1, 4-9, 5-8, 6-7.
        Rd 4: 10-7, 8-6, 9-5, 1-4, 2-3.
        Rd 5: 3-10, 4-2, 5-1, 6-9, 7-8.
        Rd 6: 10-8, 9-7, 1-6, 2-5, 3-4.
        Rd 7: 4-10, 5-3, 6-2, 7-1, 8-9.
        Rd 8: 10-9, 1-8, 2-7, 3-6, 4-5.
        Rd 9: 5-10, 6-4, 7-3, 8-2, 9-1.
    """,
    12: """
        Rd 1: 1-12, 2-11, 3-10, 4-9, 5-8, 6-7.
        Rd 2: 12-7, 8-6, 9-5, 10-4, 11-3, 1-2.
        Rd 3: 2-12, 3-1, 4-11, 5-10, 6-9, 7-8.
        Rd 4: 12-8, 9-7, 10-6, 11-5, 1-4, 2-3.
        Rd 5: 3-12, 4-2, 5-1, 6-11, 7-10, 8-9.
        Rd 6: 12-9, 10-8, 11-7, 1-6, 2-5, 3-4.
        Rd 7: 4-12, 5-3, 6-2, 7-1, 8-11, 9-10.
        Rd 8: 12-10, 11-9, 1-8, 2-7, 3-6, 4-5.
        Rd 9: 5-12, 6-4, 7-3, 8-2, 9-1, 10-11.
        Rd 10: 12-11, 1-10, 2-9, 3-8, 4-7, 5-6.
        Rd 11: 6-12, 7-5, 8-4, 9-3, 10-2, 11-1.
    """,
    14: """
        Rd 1: 1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
        Rd 2: 14-8, 9-7, 10-6, 11-5, 12-4, 13-3, 1-2
        Rd 3: 2-14, 3-1, 4-13, 5-12, 6-11, 7-10, 8-9
        Rd 4: 14-9, 10-8, 11-7, 12-6, 13-5, 1-4, 2-3
        Rd 5: 3-14, 4-2, 5-1, 6-13, 7-12, 8-11, 9-10
        Rd 6: 14-10, 11-9, 12-8, 13-7, 1-6, 2-5, 3-4
        Rd 7: 4-14, 5-3, 6-2, 7-1, 8-13, 9-12, 10-11
        Rd 8: 14-11, 12-10, 13-9, 1-8, 2-7, 3-6, 4-5
        Rd 9: 5-14, 6-4, 7-3, 8-2, 9-1, 10-13, 11-12
        Rd 10: 14-12, 13-11, 1-10, 2-9, 3-8, 4-7, 5-6
        Rd 11: 6-14, 7-5, 8-4, 9-3, 10-2, 11-1, 12-13
        Rd 12: 14-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7
        Rd 13: 7-14, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1
    """,
    # 15-16 players: from the handbook quote only (neither reprint goes this far).
    16: """
        Rd 1: 1-16, 2-15, 3-14, 4-13, 5-12, 6-11, 7-10, 8-9.
        Rd 2: 16-9, 10-8, 11-7, 12-6, 13-5, 14-4, 15-3, 1-2.
        Rd 3: 2-16, 3-1, 4-15, 5-14, 6-13, 7-12, 8-11, 9-10.
        Rd 4: 16-10, 11-9, 12-8, 13-7, 14-6, 15-5, 1-4, 2-3.
        Rd 5: 3-16, 4-2, 5-1, 6-15, 7-14, 8-13, 9-12, 10-11.
        Rd 6: 16-11, 12-10, 13-9, 14-8, 15-7, 1-6, 2-5, 3-4.
        Rd 7: 4-16, 5-3, 6-2, 7-1, 8-15, 9-14, 10-13, 11-12.
        Rd 8: 16-12, 13-11, 14-10, 15-9, 1-8, 2-7, 3-6, 4-5.
        Rd 9: 5-16, 6-4, 7-3, 8-2, 9-1, 10-15, 11-14, 12-13.
        Rd 10: 16-13, 14-12, 15-11, 1-10, 2-9, 3-8, 4-7, 5-6.
        Rd 11: 6-16, 7-5, 8-4, 9-3, 10-2, 11-1, 12-15, 13-14.
        Rd 12: 16-14, 15-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7.
        Rd 13: 7-16, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1, 14-15.
        Rd 14: 16-15, 1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8.
        Rd 15: 8-16, 9-7, 10-6, 11-5, 12-4, 13-3, 14-2, 15-1.
    """,
}


def printed(text: str) -> list[list[tuple[int, int]]]:
    """Parse a printed Berger table: one "Rd k: w-b, w-b, ..." line per round."""
    rounds = []
    for k, line in enumerate(text.strip().splitlines(), start=1):
        label, pairings = line.split(":")
        assert label.strip() == f"Rd {k}"
        rounds.append([(int(w), int(b)) for w, b in re.findall(r"(\d+)-(\d+)", pairings)])
    return rounds


@pytest.mark.parametrize("n", sorted(FIDE_BERGER))
def test_round_robin_equals_the_printed_fide_table(n: int) -> None:
    table = printed(FIDE_BERGER[n])
    assert len(table) == n - 1 and all(len(r) == n // 2 for r in table)  # parsed whole
    assert round_robin(n) == table


@pytest.mark.parametrize("n", [3, 5, 7, 9, 11, 13, 15])
def test_odd_player_counts_use_the_next_table_with_the_bye_as_n_plus_1(n: int) -> None:
    assert round_robin(n) == printed(FIDE_BERGER[n + 1])


def colours(rounds: list[list[tuple[int, int]]], players: int) -> dict[int, str]:
    seq = {p: "" for p in range(1, players + 1)}
    for pairings in rounds:
        for white, black in pairings:
            seq[white] += "W"
            seq[black] += "B"
    return seq


@pytest.mark.parametrize("n", range(2, 31))
def test_every_player_meets_every_other_exactly_once(n: int) -> None:
    rounds = round_robin(n)
    size = n + n % 2
    assert len(rounds) == size - 1
    pairs = Counter(frozenset(p) for r in rounds for p in r)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(1, size + 1), 2)}
    assert set(pairs.values()) == {1}
    for r in rounds:
        assert sorted(p for pair in r for p in pair) == list(range(1, size + 1))


def colour_profile(rounds: list[list[tuple[int, int]]], players: int) -> tuple:
    """What FIDE's tables guarantee about colours, as numbers to compare."""
    seq = colours(rounds, players)
    whites = sorted(s.count("W") for s in seq.values())
    longest = max(len(run) for s in seq.values() for run in re.findall(r"W+|B+", s))
    return whites, longest


@pytest.mark.parametrize("n", sorted(FIDE_BERGER))
def test_colours_are_balanced_as_in_the_printed_tables(n: int) -> None:
    # In the printed tables, n - 1 games each (odd): half the players get one more white
    # than black, the other half one more black, and nobody gets the same colour three times
    # in a row (player n alternates; the others repeat a colour at most twice).
    expected = colour_profile(printed(FIDE_BERGER[n]), n)
    assert expected == ([n // 2 - 1] * (n // 2) + [n // 2] * (n // 2), 2 if n > 2 else 1)
    assert colour_profile(round_robin(n), n) == expected


@pytest.mark.parametrize("n", range(18, 41, 2))
def test_colours_stay_balanced_beyond_the_printed_tables(n: int) -> None:
    whites, longest = colour_profile(round_robin(n), n)
    assert whites == [n // 2 - 1] * (n // 2) + [n // 2] * (n // 2)
    assert longest <= 2
    # The fixed player n alternates colours, starting with black.
    assert colours(round_robin(n), n)[n] == "BW" * ((n - 2) // 2) + "B"


@pytest.mark.parametrize("n", [-1, 0, 1])
def test_round_robin_needs_two_players(n: int) -> None:
    with pytest.raises(ValueError, match="at least 2 players"):
        round_robin(n)


def test_two_players() -> None:
    assert round_robin(2) == [[(1, 2)]]


# --- Single elimination ---------------------------------------------------------------------


def test_standard_bracket_orders() -> None:
    # 16: the order printed for every NCAA basketball region (e.g. the 2019 East region as
    # listed by the Chicago Sun-Times: 1-16, 8-9, 5-12, 4-13, 6-11, 3-14, 7-10, 2-15). 8: the
    # bracket that order reduces to when favourites win (1-8, 4-5, 3-6, 2-7, as printed in
    # "8 team seeded tournament bracket" guides: #1 #8 #4 #5 #3 #6 #2 #7). 4: 1-4, 2-3.
    assert single_elimination_seeding(4) == [(1, 4), (2, 3)]
    assert single_elimination_seeding(8) == [(1, 8), (4, 5), (3, 6), (2, 7)]
    assert single_elimination_seeding(16) == [
        (1, 16),
        (8, 9),
        (5, 12),
        (4, 13),
        (6, 11),
        (3, 14),
        (7, 10),
        (2, 15),
    ]
    assert single_elimination_seeding(2) == [(1, 2)]


def test_byes_go_to_the_top_seeds() -> None:
    assert single_elimination_seeding(3) == [(1, None), (2, 3)]
    assert single_elimination_seeding(6) == [(1, None), (4, 5), (3, 6), (2, None)]
    assert single_elimination_seeding(13) == [
        (1, None),
        (8, 9),
        (5, 12),
        (4, 13),
        (6, 11),
        (3, None),
        (7, 10),
        (2, None),
    ]


def play_out(matches: list[tuple[int, int | None]]) -> Iterator[list[tuple[int, int]]]:
    """Rounds of a bracket where the better seed always wins (byes advance)."""
    field = [a if b is None else min(a, b) for a, b in matches]
    while len(field) > 1:
        pairs = [(field[i], field[i + 1]) for i in range(0, len(field), 2)]
        yield pairs
        field = [min(p) for p in pairs]


@pytest.mark.parametrize("n", range(2, 70))
def test_seeding_properties(n: int) -> None:
    matches = single_elimination_seeding(n)
    size = 1 << (n - 1).bit_length()
    assert len(matches) == size // 2
    seeds = [s for m in matches for s in m if s is not None]
    assert sorted(seeds) == list(range(1, n + 1))
    byes = sorted(a for a, b in matches if b is None)
    assert byes == list(range(1, size - n + 1))  # the top seeds, as many as missing players
    for a, b in matches:
        assert b is None or (a < b and a + b == size + 1)
    # With favourites winning, every later round pairs seeds adding up to its field + 1:
    # seeds 1 and 2 meet only in the final, 1-4 only from the semi-finals, and so on.
    field = size // 2
    for pairs in play_out(matches):
        assert all(a + b == field + 1 for a, b in pairs)
        field //= 2


@pytest.mark.parametrize("n", [-3, 0, 1])
def test_a_bracket_needs_two_players(n: int) -> None:
    with pytest.raises(ValueError, match="at least 2 players"):
        single_elimination_seeding(n)


# --- Swiss: table sizes ------------------------------------------------------------------------


def test_table_sizes_for_four_player_tables() -> None:
    # The documented rule: fewest tables, sizes as even as possible, larger first. For
    # table_size 4: n = 1 is a bye, 2 / 3 / 4 one table, 5 -> 3 + 2, n >= 6 only 4s and 3s.
    expected = {
        0: [],
        1: [1],
        2: [2],
        3: [3],
        4: [4],
        5: [3, 2],
        6: [3, 3],
        7: [4, 3],
        8: [4, 4],
        9: [3, 3, 3],
        10: [4, 3, 3],
        11: [4, 4, 3],
        12: [4, 4, 4],
        13: [4, 3, 3, 3],
    }
    assert {n: table_sizes(n, 4) for n in expected} == expected
    for n in range(6, 500):
        sizes = table_sizes(n, 4)
        assert set(sizes) <= {3, 4} and sum(sizes) == n
        assert len(sizes) == -(-n // 4)  # as few tables as possible
        assert sizes == sorted(sizes, reverse=True)


def test_table_sizes_for_pairs_and_triples() -> None:
    for n in range(0, 200):
        pairs = table_sizes(n, 2)
        assert pairs == [2] * (n // 2) + [1] * (n % 2)  # one bye when odd
        triples = table_sizes(n, 3)
        assert sum(triples) == n
        if n >= 2:
            assert set(triples) <= {2, 3}
    assert table_sizes(4, 3) == [2, 2]
    assert table_sizes(10, 3) == [3, 3, 2, 2]


def test_table_sizes_validation() -> None:
    with pytest.raises(ValueError):
        table_sizes(-1, 4)
    with pytest.raises(ValueError):
        table_sizes(5, 1)


# --- Swiss: behaviour ----------------------------------------------------------------------------


def field(n: int, points: Sequence[float] | None = None) -> list[SwissPlayer]:
    """Players 1..n, rated in that order (1 best), all on the same points unless given."""
    return [
        SwissPlayer(i, points[i - 1] if points else 0.0, 2000 - 10 * i) for i in range(1, n + 1)
    ]


def test_tables_are_cut_from_the_ranking() -> None:
    players = field(10)
    random.Random(3).shuffle(players)
    assert swiss_tables(players, 4) == [[1, 2, 3, 4], [5, 6, 7], [8, 9, 10]]


def test_points_come_before_rating() -> None:
    players = [
        SwissPlayer("a", points=1, rating=1200),
        SwissPlayer("b", points=0, rating=2400),
        SwissPlayer("c", points=2, rating=1000),
        SwissPlayer("d", points=1, rating=1900),
        SwissPlayer("e", points=0, rating=1500),
        SwissPlayer("f", points=1.5, rating=1100),
    ]
    assert swiss_tables(players, 3) == [["c", "f", "d"], ["a", "b", "e"]]


def test_equal_players_keep_the_order_given() -> None:
    players = [SwissPlayer(name, 1, 1500) for name in "zyxwvu"]
    assert swiss_tables(players, 3) == [["z", "y", "x"], ["w", "v", "u"]]


def test_a_repeat_floats_the_next_player_up() -> None:
    # 1 met 2: 2 drops to the next table and 5 comes up, the smallest change.
    assert swiss_tables(field(8), 4, [[1, 2]]) == [[1, 3, 4, 5], [2, 6, 7, 8]]


def test_history_as_earlier_tables() -> None:
    # Round 1 cut 16 players into 1-4, 5-8, 9-12, 13-16; round 2 reuses no pair of a table,
    # so each new table takes one player from each old one, best first.
    first = swiss_tables(field(16), 4)
    assert first == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
    second = swiss_tables(field(16), 4, first)
    assert second == [[1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15], [4, 8, 12, 16]]
    # With 8 players (two old tables) a table of 4 must repeat: 2 + 2 from the old tables
    # is the fewest, 2 repeats a table.
    second = swiss_tables(field(8), 4, first)
    assert len(repeated_pairs(second, first)) == 4


def test_classic_swiss_fold_for_pairs() -> None:
    # One score group of 8: top half meets bottom half in order, as in the FIDE Dutch system.
    assert swiss_tables(field(8), 2) == [[1, 5], [2, 6], [3, 7], [4, 8]]
    # Two groups of 3: the odd player of the top group floats down to meet the top of the next.
    players = field(6, points=[1, 1, 1, 0, 0, 0])
    assert swiss_tables(players, 2) == [[1, 2], [3, 4], [5, 6]]
    # A rematch takes the next player of the bottom half.
    assert swiss_tables(field(8), 2, [[1, 5]]) == [[1, 6], [2, 5], [3, 7], [4, 8]]


def test_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    assert swiss_tables(field(5), 2) == [[1, 3], [2, 4], [5]]
    history = [[5], [4]]  # byes in earlier rounds
    assert swiss_tables(field(5), 2, history) == [[1, 4], [2, 5], [3]]
    # Everybody had a bye already: the lowest-ranked gets another (there is no better choice).
    assert swiss_tables(field(3), 2, [[1], [2], [3]]) == [[1, 2], [3]]


def test_small_fields() -> None:
    assert swiss_tables([], 4) == []
    assert swiss_tables(field(1), 4) == [[1]]  # a bye
    assert swiss_tables(field(2), 4) == [[1, 2]]
    assert swiss_tables(field(5), 4) == [[1, 2, 3], [4, 5]]
    assert swiss_tables(field(2), 4, [[1, 2]]) == [[1, 2]]  # no other choice


def test_unavoidable_repeats_are_as_few_as_possible() -> None:
    # Four players who all met: one table of 4 repeats all 6 pairs, two tables of 2 would
    # not be the table sizes, so the only seating is the one table.
    history = [[1, 2, 3, 4]]
    assert swiss_tables(field(4), 4, history) == [[1, 2, 3, 4]]
    # Six players, 1-2-3 and 4-5-6 met: two tables of 3 need at least 2 repeats (each new
    # table has two players from one old table), not the 6 of seating them again.
    tables = swiss_tables(field(6), 4, [[1, 2, 3], [4, 5, 6]])
    assert len(repeated_pairs(tables, [[1, 2, 3], [4, 5, 6]])) == 2


def test_deterministic_and_independent_of_history_order() -> None:
    rng = random.Random(11)
    players = [
        SwissPlayer(f"p{i}", rng.choice([0, 1, 2]), rng.randint(1200, 1800)) for i in range(30)
    ]
    history = [rng.sample([p.id for p in players], 4) for _ in range(20)]
    first = swiss_tables(players, 4, history)
    assert swiss_tables(players, 4, history) == first
    assert swiss_tables(players, 4, list(reversed(history))) == first
    assert swiss_tables(players, 4, [list(reversed(t)) for t in history]) == first


def test_history_may_name_unknown_players() -> None:
    assert swiss_tables(field(4), 4, [[1, 99], [98, 97, 96]]) == [[1, 2, 3, 4]]


@pytest.mark.parametrize(
    ("players", "table_size", "message"),
    [
        (field(3), 1, "at least 2"),
        (field(3), True, "at least 2"),
        ([SwissPlayer(1), SwissPlayer(1)], 4, "twice"),
        ([SwissPlayer(1, points=float("nan"))], 4, "finite"),
        ([SwissPlayer(1, rating="1500")], 4, "numbers"),
    ],
)
def test_swiss_validation(players, table_size, message) -> None:
    with pytest.raises(ValueError, match=message):
        swiss_tables(players, table_size)


def test_fallback_still_removes_avoidable_repeats() -> None:
    # Forty players; the bottom eight have all met each other. The exact search would have to
    # re-seat many tables, so with no search budget the greedy seating and swap repair run:
    # they must still spread the eight over eight tables.
    players = field(40)
    bottom = list(range(33, 41))
    history = [list(p) for p in itertools.combinations(bottom, 2)]
    for budget in (0, 200_000):
        tables = swiss_tables(players, 4, history, search_budget=budget)
        assert sorted(p for t in tables for p in t) == list(range(1, 41))
        assert [len(t) for t in tables] == [4] * 10
        assert not repeated_pairs(tables, history)


# --- Swiss: properties ---------------------------------------------------------------------


def repeated_pairs(
    tables: Sequence[Sequence[object]], history: Sequence[Collection[object]]
) -> list[frozenset]:
    met = {frozenset(p) for t in history for p in itertools.combinations(t, 2)}
    return [
        frozenset(p) for t in tables for p in itertools.combinations(t, 2) if frozenset(p) in met
    ]


def cost(tables: Sequence[Sequence[int]], history: Sequence[Collection[int]]) -> int:
    """Repeated pairs plus byes to players who had one: what the seating minimises."""
    had_bye = {next(iter(t)) for t in history if len(t) == 1}
    byes = sum(1 for t in tables if len(t) == 1 and t[0] in had_bye)
    return len(repeated_pairs(tables, history)) + byes


def seatings(people: list[int], sizes: list[int]) -> Iterator[list[list[int]]]:
    """Every way to seat ``people`` at tables of the given sizes (tables unordered)."""
    if not people:
        yield []
        return
    first, rest = people[0], people[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for mates in itertools.combinations(rest, size - 1):
            others = [p for p in rest if p not in mates]
            for more in seatings(others, left):
                yield [[first, *mates], *more]


def fewest_repeats(ids: list[int], size: int, history: list[list[int]]) -> int:
    return min(cost(s, history) for s in seatings(ids, table_sizes(len(ids), size)))


@st.composite
def swiss_rounds(draw: st.DrawFn, max_players: int = 8) -> tuple:
    n = draw(st.integers(min_value=0, max_value=max_players))
    size = draw(st.integers(min_value=2, max_value=4))
    points = st.sampled_from([0, 0.5, 1, 1.5, 2, 3])
    players = [
        SwissPlayer(i, draw(points), draw(st.integers(min_value=1000, max_value=1010)))
        for i in range(1, n + 1)
    ]
    ids = list(range(1, n + 1)) or [1]
    table = st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True)
    history = draw(st.lists(table, max_size=12))
    return players, size, history


def ranking(players: Sequence[SwissPlayer]) -> list[object]:
    order = sorted(range(len(players)), key=lambda i: (-players[i].points, -players[i].rating, i))
    return [players[i].id for i in order]


@settings(max_examples=300, deadline=None)
@given(swiss_rounds())
def test_swiss_round_is_valid_and_has_fewest_repeats(case: tuple) -> None:
    # Brute force over every seating for n <= 8: the result has the fewest repeats possible
    # (so none whenever a repeat-free seating exists).
    players, size, history = case
    tables = swiss_tables(players, size, history)
    ids = [p.id for p in players]
    assert sorted(p for t in tables for p in t) == sorted(ids)  # everyone seated once
    assert sorted(len(t) for t in tables) == sorted(table_sizes(len(ids), size))
    assert cost(tables, history) == fewest_repeats(ids, size, history)
    rank = {pid: r for r, pid in enumerate(ranking(players))}
    for t in tables:
        assert [rank[p] for p in t] == sorted(rank[p] for p in t)  # ranking order inside
    assert all(len(t) > 1 for t in tables[:-1])  # a bye comes last


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=60), st.integers(min_value=3, max_value=4), st.data())
def test_without_history_tables_follow_the_ranking(n: int, size: int, data: st.DataObject) -> None:
    players = [
        SwissPlayer(i, data.draw(st.sampled_from([0, 1, 2])), data.draw(st.integers(1000, 1100)))
        for i in range(n)
    ]
    tables = swiss_tables(players, size)
    assert [p for t in tables for p in t] == ranking(players)
    assert [len(t) for t in tables] == table_sizes(n, size)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=41), st.data())
def test_pairs_without_history_stay_in_score_groups(n: int, data: st.DataObject) -> None:
    # Classic Swiss with no rematch to avoid: a pair mixes score groups only for a floater
    # from an odd group, and the bye (odd n) goes to the lowest-ranked player.
    players = [
        SwissPlayer(i, data.draw(st.sampled_from([0, 1, 2, 3])), data.draw(st.integers(1000, 1100)))
        for i in range(n)
    ]
    tables = swiss_tables(players, 2)
    points = {p.id: p.points for p in players}
    ranked = ranking(players)
    if n % 2:
        assert tables[-1] == [ranked[-1]]
    paired = [p for p in ranked if n % 2 == 0 or p != ranked[-1]]
    floaters, carry = 0, 0
    for _, group in itertools.groupby(paired, key=lambda p: points[p]):
        size = len(list(group))
        floaters += carry
        carry = (size - carry) % 2
    mixed = sum(1 for t in tables if len(t) == 2 and points[t[0]] != points[t[1]])
    assert mixed == floaters


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=10, max_value=80), st.integers(min_value=2, max_value=4), st.randoms())
def test_simulated_tournaments_stay_valid(n: int, size: int, rnd: random.Random) -> None:
    # Rounds fed back as history: every round seats everyone once at the planned table
    # sizes. And no opponent repeats while there are more tables than anyone has opponents:
    # then a repeat-free seating exists (Hajnal-Szemeredi: a graph of maximum degree D has
    # an equitable colouring with any k >= D + 1 colours, i.e. k tables of sizes differing by
    # at most one, none holding two players who met).
    points = dict.fromkeys(range(n), 0.0)
    history: list[list[int]] = []
    for _ in range(6):
        players = [SwissPlayer(i, points[i], 1000 + i % 7) for i in range(n)]
        tables = swiss_tables(players, size, history)
        assert sorted(p for t in tables for p in t) == list(range(n))
        assert sorted(len(t) for t in tables) == sorted(table_sizes(n, size))
        met = Counter(p for t in history for pair in itertools.combinations(t, 2) for p in pair)
        most_met = max(met.values(), default=0)
        if len(tables) >= most_met + 1 and (size > 2 or n % 2 == 0):  # a bye adds a rule
            assert not repeated_pairs(tables, history)
        for t in tables:
            order = list(t)
            rnd.shuffle(order)
            for place, pid in enumerate(order):
                points[pid] += len(t) - 1 - place
        history.extend(tables)


# --- Purity -----------------------------------------------------------------------------------


def test_importing_pairing_loads_no_django() -> None:
    code = (
        "import json, sys\n"
        "import tournaments.pairing, tournaments.elo\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'django')))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
