"""Multiplayer Elo (tournaments/elo.py) against published worked examples and its invariants."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.elo import expected_score, k_factor, multiplayer_elo

REPO_ROOT = Path(__file__).resolve().parents[2]


def deltas(ratings: list[float], places: list[int], k: float | list[float]) -> list[float]:
    return [
        new - old for new, old in zip(multiplayer_elo(ratings, places, k), ratings, strict=True)
    ]


# --- Two players: exactly standard Elo -------------------------------------------------------


def test_equal_players_k32_move_16_points() -> None:
    # Standard Elo: E = 0.5 for equal ratings, so a win moves K * (1 - 0.5) = 16 at K = 32.
    assert multiplayer_elo([1500, 1500], [1, 2], 32) == pytest.approx([1516, 1484])
    assert multiplayer_elo([1500, 1500], [2, 1], 32) == pytest.approx([1484, 1516])


def test_two_players_equal_standard_elo_factor_two_over_n_is_one() -> None:
    # For N = 2 the factor 2 / N is 1: the change is K * (S - E), the textbook formula.
    for r_a, r_b, place_a, place_b, k in [
        (1613, 1477, 1, 1, 32),
        (2100, 1850, 2, 1, 20),
        (1200, 1900, 1, 2, 40),
    ]:
        s_a = 1.0 if place_a < place_b else 0.0 if place_a > place_b else 0.5
        e_a = 1 / (1 + 10 ** ((r_b - r_a) / 400))
        new_a, new_b = multiplayer_elo([r_a, r_b], [place_a, place_b], k)
        assert new_a == pytest.approx(r_a + k * (s_a - e_a))
        assert new_b == pytest.approx(r_b + k * ((1 - s_a) - (1 - e_a)))


def test_wikipedia_worked_example_1613_to_1601() -> None:
    # Published worked example (Wikipedia, "Elo rating system", section "Mathematical details";
    # also quoted in MATLAB Cody problem 3057 "Chess Performance"): player A, rated 1613, loses
    # to 1609, draws with 1477, beats 1388 and 1586, loses to 1720. Expected scores
    # 0.506 + 0.686 + 0.785 + 0.539 + 0.351 = 2.867; actual 2.5; with K = 32 the new rating is
    # 1613 + 32 * (2.5 - 2.867) = 1601. (An older revision printed 0.51 + 0.76 + ... = 2.99 and
    # 1597 from a misread table; stats.stackexchange.com/q/287256 points out the mismatch. The
    # formula gives the 2.867 figures.) A rating period rates every game from the same
    # starting rating, so the five duels are rated separately and their changes added.
    # (opponent, places of A and the opponent, published expected score of A)
    games = [
        (1609, [2, 1], 0.506),  # loss
        (1477, [1, 1], 0.686),  # draw
        (1388, [1, 2], 0.785),  # win
        (1586, [1, 2], 0.539),  # win
        (1720, [2, 1], 0.351),  # loss
    ]
    total_expected = 0.0
    change = 0.0
    for opponent, places, published_e in games:
        assert expected_score(1613, opponent) == pytest.approx(published_e, abs=5e-4)
        total_expected += expected_score(1613, opponent)
        change += multiplayer_elo([1613, opponent], places, 32)[0] - 1613
    assert total_expected == pytest.approx(2.867, abs=5e-4)
    assert change == pytest.approx(32 * (2.5 - total_expected))
    assert round(1613 + change) == 1601


def test_400_points_means_ten_to_one() -> None:
    # Wikipedia ("Elo rating system"): for each 400 points of advantage the expected score is
    # ten times the opponent's, so 1900 vs 1500 expects 10/11. With K = 11 a win by the
    # favourite moves exactly 11 * (1 - 10/11) = 1 point.
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert multiplayer_elo([1900, 1500], [1, 2], 11) == pytest.approx([1901, 1499])


# --- More than two players -------------------------------------------------------------------


def test_three_players_with_a_tie_by_hand() -> None:
    # A 1700, B 1500, C 1450; B wins, A and C tie for second; K = 20, N = 3 so 2/N = 2/3.
    # Expected scores, E_ij = 1 / (1 + 10^((R_j - R_i) / 400)):
    #   E_AB = 1 / (1 + 10^(-0.5))   = 0.75975   E_BA = 0.24025
    #   E_AC = 1 / (1 + 10^(-0.625)) = 0.80832   E_CA = 0.19168
    #   E_BC = 1 / (1 + 10^(-0.125)) = 0.57146   E_CB = 0.42854
    # Duel scores from places: S_AB = 0, S_AC = 0.5 (tie), S_BA = S_BC = 1, S_CA = 0.5, S_CB = 0.
    #   A: (0 - 0.75975) + (0.5 - 0.80832) = -1.06807  -> 20 * 2/3 * -1.06807 = -14.2409
    #   B: (1 - 0.24025) + (1 - 0.57146)   = +1.18829  -> 20 * 2/3 * +1.18829 = +15.8438
    #   C: (0.5 - 0.19168) + (0 - 0.42854) = -0.12022  -> 20 * 2/3 * -0.12022 =  -1.6029
    # The changes add up to 0 (equal K).
    new = multiplayer_elo([1700, 1500, 1450], [2, 1, 2], 20)
    assert new == pytest.approx([1700 - 14.2409, 1500 + 15.8438, 1450 - 1.6029], abs=1e-3)
    assert sum(new) == pytest.approx(1700 + 1500 + 1450)


def test_four_players_with_a_tie_by_hand() -> None:
    # A 1600 first, B 1500 and C 1500 tie for second, D 1400 last; K = 32, 2/N = 1/2.
    #   E(+100) = 1 / (1 + 10^(-0.25)) = 0.64007, E(+200) = 1 / (1 + 10^(-0.5)) = 0.75975.
    #   A: 3 wins, expected 0.64007 + 0.64007 + 0.75975 = 2.03988 -> 16 * 0.96012 = +15.362
    #   B: loses to A (-0.35993), draws with its equal C (0), beats D (+0.35993) -> 0
    #   C: the same as B -> 0;  D: three losses, -(0.24025 + 0.35993 + 0.35993) -> -15.362
    new = multiplayer_elo([1600, 1500, 1500, 1400], [1, 2, 2, 4], 32)
    assert new == pytest.approx([1615.362, 1500, 1500, 1384.638], abs=1e-3)


def test_places_only_count_by_order() -> None:
    ratings = [1500, 1620, 1380, 1700]
    assert multiplayer_elo(ratings, [1, 1, 3, 4], 20) == pytest.approx(
        multiplayer_elo(ratings, [1, 1, 2, 3], 20)
    )


def test_the_people_of_a_table_with_bots_rate_as_a_table_of_their_own() -> None:
    """rate_game passes only the people's places, with the bots' places left out as gaps:
    the people of [bot 1st, anna 2nd, bot 3rd, bela 4th] rate as anna 1st, bela 2nd, and a
    duel of two is plain Elo (the factor 2 / N counts the people only)."""
    assert multiplayer_elo([1600, 1450], [2, 4], 20) == pytest.approx(
        multiplayer_elo([1600, 1450], [1, 2], 20)
    )
    win = 20 * (1 - expected_score(1600, 1450))
    assert multiplayer_elo([1600, 1450], [2, 4], 20) == pytest.approx([1600 + win, 1450 - win])


def test_ties_between_equals_change_nothing() -> None:
    for n in (2, 3, 4):
        assert multiplayer_elo([1532.5] * n, [1] * n, 40) == pytest.approx([1532.5] * n)


def test_per_player_k() -> None:
    # Each player's change uses their own K: the provisional player moves twice as far.
    d = deltas([1500, 1500], [1, 2], [40, 20])
    assert d == pytest.approx([20, -10])


def test_more_players_at_a_table_move_ratings_further() -> None:
    # BGA: "the number of Elo points you can gain/lose during a game increases with the
    # number of players". Winning among equals: N = 2 -> K/2, N = 3 -> 2/3 K, N = 4 -> 3/4 K.
    wins = [deltas([1500] * n, list(range(1, n + 1)), 32)[0] for n in (2, 3, 4)]
    assert wins == pytest.approx([16, 32 * 2 / 3, 24])


# --- Validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "places", "k", "message"),
    [
        ([1500, 1500], [1], 20, "one place per player"),
        ([1500], [1], 20, "at least 2 players"),
        ([], [], 20, "at least 2 players"),
        ([1500, 1500], [0, 1], 20, "places start at 1"),
        ([1500, 1500], [1.5, 2], 20, "whole numbers"),
        ([1500, 1500], [1, 2], 0, "K must be"),
        ([1500, 1500], [1, 2], -5, "K must be"),
        ([1500, 1500], [1, 2], [20], "one K per player"),
        ([1500, 1500], [1, 2], [20, 0], "K must be"),
        ([1500, 1500], [1, 2], "20", "k must be a number"),
        ([1500, float("nan")], [1, 2], 20, "finite"),
        ([1500, "1500"], [1, 2], 20, "numbers"),
    ],
)
def test_bad_input_is_a_clear_value_error(ratings, places, k, message) -> None:
    with pytest.raises(ValueError, match=message):
        multiplayer_elo(ratings, places, k)


# --- K-factor ---------------------------------------------------------------------------------


def test_k_factor_follows_fide_defaults() -> None:
    # FIDE Rating Regulations 8.3.3 (in force from 1 March 2024; the same values since 1 July
    # 2014): K = 40 for a player new to the list until they have completed events with at
    # least 30 games; K = 20 as long as the rating remains under 2400; K = 10 once the
    # published rating has reached 2400, even if it later drops below.
    assert k_factor(0, 1500, 1500) == 40
    assert k_factor(29, 1500, 1500) == 40
    assert k_factor(30, 1500, 1500) == 20
    assert k_factor(30, 2399, 2399) == 20
    assert k_factor(30, 2400, 2400) == 10
    assert k_factor(200, 2350, 2410) == 10  # reached 2400 once: stays at 10
    assert k_factor(10, 2500, 2500) == 40  # still provisional


def test_k_factor_values_are_settings() -> None:
    custom = {
        "provisional_games": 10,
        "k_new": 60,
        "k_regular": 30,
        "k_top": 15,
        "top_threshold": 2000,
    }
    assert k_factor(9, 1500, 1500, **custom) == 60
    assert k_factor(10, 1500, 1500, **custom) == 30
    assert k_factor(10, 1900, 2000, **custom) == 15


def test_k_factor_rejects_negative_game_counts() -> None:
    with pytest.raises(ValueError, match="games_played"):
        k_factor(-1, 1500, 1500)


# --- Properties -------------------------------------------------------------------------------

ratings_st = st.floats(min_value=100, max_value=3000, allow_nan=False)
k_st = st.floats(min_value=1, max_value=64)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    n = draw(st.integers(min_value=2, max_value=4))
    ratings = draw(st.lists(ratings_st, min_size=n, max_size=n))
    places = draw(st.lists(st.integers(min_value=1, max_value=n), min_size=n, max_size=n))
    return ratings, places


@given(tables(), k_st)
def test_zero_sum_with_equal_k(table: tuple[list[float], list[int]], k: float) -> None:
    ratings, places = table
    assert sum(deltas(ratings, places, k)) == pytest.approx(0, abs=1e-9)


@given(tables(), k_st, st.randoms(use_true_random=False))
def test_symmetric_under_permuting_players(table, k, rnd) -> None:
    ratings, places = table
    order = list(range(len(ratings)))
    rnd.shuffle(order)
    before = multiplayer_elo(ratings, places, k)
    after = multiplayer_elo([ratings[i] for i in order], [places[i] for i in order], k)
    assert after == pytest.approx([before[i] for i in order])


@given(st.integers(min_value=2, max_value=4), ratings_st, k_st)
def test_winner_never_loses_points_against_losers_of_equal_rating(n, rating, k) -> None:
    # Equal ratings at the table: the sole winner gains, the sole last loses.
    places = list(range(1, n + 1))
    d = deltas([rating] * n, places, k)
    assert d[0] > 0
    assert d[-1] < 0


@given(tables(), k_st)
def test_a_better_place_never_gives_fewer_points(table, k) -> None:
    # Monotonic in place: improving one player's place (all else equal) never lowers their
    # new rating, and strictly raises it when it changes any duel.
    ratings, places = table
    for i in range(len(ratings)):
        base = deltas(ratings, places, k)[i]
        for better in range(1, places[i]):
            moved = list(places)
            moved[i] = better
            assert deltas(ratings, moved, k)[i] >= base - 1e-9


@given(tables(), k_st)
def test_equal_ratings_order_by_place(table, k) -> None:
    # Among equally rated players, a better place always means a larger change.
    _, places = table
    d = deltas([1500.0] * len(places), places, k)
    for i, j in itertools.permutations(range(len(places)), 2):
        if places[i] < places[j]:
            assert d[i] > d[j]
        elif places[i] == places[j]:
            assert d[i] == pytest.approx(d[j])


# --- Purity -----------------------------------------------------------------------------------


def test_importing_elo_loads_no_django() -> None:
    code = (
        "import json, sys\n"
        "import tournaments.elo\n"
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
